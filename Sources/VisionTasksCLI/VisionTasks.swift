import ArgumentParser
import VisionTasksModelFormat
import Foundation

@main
struct VisionTasks: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vision-tasks",
        abstract: "MediaPipe-style vision tasks on the CPU, in Swift.",
        subcommands: [ModelCommand.self, ImageCommand.self, PoseCommand.self, FaceCommand.self, HandCommand.self, GestureCommand.self,
                      ObjectCommand.self, ClassifyCommand.self, ObjectTrackingCommand.self, WorkerCommand.self])
}

struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model", abstract: "Inspect model files and bundles.", subcommands: [ModelInfo.self, ModelRun.self])
}

/// Errors the CLI reports as a message and exit status 1, never a crash.
struct CLIError: Error, CustomStringConvertible {
    let description: String
}
