import ArgumentParser
import Foundation
import VisionTasks
import VisionTasksModelFormat
import VisionTasksResultJSON

@main
struct VisionTasks: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vision-tasks",
        abstract: "MediaPipe-style vision tasks on the CPU, in Swift.",
        discussion: "The tasks (`vision-tasks TASK --help` for each):\n"
            + TaskRegistry.tasks.map { "  \($0.name)  \($0.summary)" }.joined(separator: "\n")
            + "\n\nThis build: \(KernelTierStatus.current).",
        subcommands: [ModelCommand.self, ImageCommand.self, WorkerCommand.self])

    /// A registered task's name goes to its command (``RegisteredTaskCommand``), as does `help TASK`; anything else to
    /// ArgumentParser.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let name = arguments.first, let task = TaskRegistry.task(named: name) {
            RegisteredTaskCommand.main(task, arguments: Array(arguments.dropFirst()))
        }
        if arguments.count == 2, arguments[0] == "help", let task = TaskRegistry.task(named: arguments[1]) {
            RegisteredTaskCommand.main(task, arguments: ["--help"])
        }
        main(nil)
    }
}

struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model", abstract: "Inspect model files and bundles.", subcommands: [ModelInfo.self, ModelRun.self])
}

/// Errors the CLI reports as a message and exit status 1, never a crash.
struct CLIError: Error, CustomStringConvertible {
    let description: String
}
