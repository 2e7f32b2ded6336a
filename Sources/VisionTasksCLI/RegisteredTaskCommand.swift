import ArgumentParser
import Foundation
import VisionTasksImaging
import VisionTasksResultJSON
import VisionTasksTooling
import VisionTasks

/// `vision-tasks TASK MODEL INPUT… [options]` for every task in ``TaskRegistry``: the task commands' common options
/// (inputs, running modes, outputs, orientation, threads) and the task's own, from its ``TaskDescription``, under
/// MediaPipe's names in kebab case (`minDetectionConfidence` is `--min-detection-confidence`), checked against the
/// description's ranges. ArgumentParser wants a type per command with its options as properties, and a registered task
/// brings its options as values, so the task's options are taken out of the arguments here and the rest is parsed by
/// this one command type, named after the task being run.
struct RegisteredTaskCommand: ParsableCommand {
    /// The task this run of the command is for: set once, before parsing, from the command name.
    nonisolated(unsafe) static var task = TaskRegistry.tasks[0]
    nonisolated(unsafe) static var values: [String: TaskOptionValue] = [:]
    /// Why the task's options were refused, thrown from `validate()` so that the message comes with this command's usage.
    nonisolated(unsafe) static var refusal: ValidationError?

    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: task.name, abstract: task.summary, discussion: optionsHelp(task))
    }

    @OptionGroup var common: TaskCommandOptions

    func validate() throws {
        if let refusal = Self.refusal { throw refusal }
    }

    func run() throws {
        try TaskCommandRunner(options: common, taskName: Self.task.name).run(Self.task, values: Self.values)
    }

    /// Runs `vision-tasks NAME ARGUMENTS…` for a registered task and exits.
    static func main(_ task: TaskDescription, arguments: [String]) -> Never {
        Self.task = task
        var rest = arguments
        do {
            (Self.values, rest) = try split(arguments, for: task)
        } catch {
            // The parser still runs, without the task's options, for `--help` and this command's usage.
            refusal = error as? ValidationError ?? ValidationError("\(error)")
            rest = arguments.filter { $0 == "--help" || $0 == "-h" } + ["-", "-"]
        }
        do {
            var command = try Root.parseAsRoot([task.name] + rest)
            try command.run()
            Root.exit()
        } catch {
            Root.exit(withError: error)
        }
    }

    /// `vision-tasks` with this one command under it, so that usage and errors name it as a user types it.
    struct Root: ParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "vision-tasks", subcommands: [RegisteredTaskCommand.self])
        }
    }

    /// The task's options taken out of `arguments` (`--name value`, `--name=value`, and for a flag `--name`,
    /// `--no-name`), each checked by its description; everything else, in order, for the parser. Nothing after `--`
    /// is an option.
    static func split(_ arguments: [String], for task: TaskDescription) throws -> (values: [String: TaskOptionValue], rest: [String]) {
        var values: [String: TaskOptionValue] = [:], rest: [String] = []
        let options = task.options(on: .commandLine)
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                rest += arguments[(index - 1)...]
                break
            }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let flag = String(parts[0])
            if let option = options.first(where: { $0.kind == .flag && "--no-" + $0.flag.dropFirst(2) == flag }), parts.count == 1 {
                values[option.name] = .flag(false)
                continue
            }
            guard let option = options.first(where: { $0.flag == flag }) else {
                rest.append(argument)
                continue
            }
            let text: String
            if parts.count == 2 {
                text = String(parts[1])
            } else if option.kind == .flag {
                text = "true"
            } else {
                guard index < arguments.count else { throw ValidationError("\(flag) needs a value (\(option.kindDescription))") }
                text = arguments[index]
                index += 1
            }
            let value: TaskOptionValue
            do { value = try option.value(parsing: text, label: flag) } catch { throw ValidationError(error.description) }
            if case let .names(more) = value, case let .names(earlier)? = values[option.name] {
                values[option.name] = .names(earlier + more)
            } else {
                values[option.name] = value
            }
        }
        for group in task.exclusiveOptions {
            let given = options.filter { group.contains($0.name) && values[$0.name].map { $0 != .names([]) } == true }
            if given.count > 1 { throw ValidationError(given.map(\.flag).joined(separator: " and ") + " are exclusive") }
        }
        for option in options where values[option.name] == nil {
            if let value = option.commandLineDefault { values[option.name] = value }
        }
        return (values, rest)
    }

    /// The task's options for `--help`.
    static func optionsHelp(_ task: TaskDescription) -> String {
        let owner = task.catalog == .mlKit ? "ML Kit" : "MediaPipe"
        var lines = ["\(task.title) options (\(owner)'s names in kebab case, or in brackets where the flag is shorter):"]
        for option in task.options(on: .commandLine) {
            var usage = option.kind == .flag ? "\(option.flag) / --no-\(option.flag.dropFirst(2))" : "\(option.flag) <\(option.kindDescription)>"
            if option.flag != "--" + TaskOptionDescription.kebab(option.name) { usage += "  [\(option.name)]" }
            lines.append("  \(usage)\n        \(option.help) (default: \(option.commandLineDefault ?? option.defaultValue))")
        }
        lines.append("Models: \(task.modelNames.joined(separator: ", ")). Running modes: \(task.runningModes.map { "\($0)" }.joined(separator: ", ")).")
        return lines.joined(separator: "\n")
    }
}

/// A registered task's ``TaskMark``s over the image: boxes with their labels, points, a confidence mask.
enum MarkDrawing {
    static func draw(_ marks: [TaskMark], on image: MPImage) -> Canvas {
        var canvas = Canvas(image: image)
        let longerSide = max(image.width, image.height)
        let scale = max(1, Double(longerSide) / 600)
        func pixels(_ p: NormalizedMarkPoint) -> (x: Double, y: Double) { (p.x * Double(image.width), p.y * Double(image.height)) }
        for mark in marks {
            switch mark {
            case let .box(box, label):
                canvas.drawBox(x: Double(box.minX), y: Double(box.minY), width: Double(box.width), height: Double(box.height), thickness: scale, .green)
                guard let x = pixelCoordinate(Double(box.minX)), let y = pixelCoordinate(Double(box.minY)) else { continue }
                canvas.drawLabel(label, x: x + 2, y: max(0, y - 10 * Int(scale.rounded())), scale: Int(scale.rounded()), .white)
            case let .normalizedPoint(x, y):
                canvas.drawPoint(x: x * Double(image.width), y: y * Double(image.height), radius: 2 * scale, .red)
            case let .confidence(mask):
                canvas.overlay(mask: mask.float32Values, maskWidth: mask.width, maskHeight: mask.height, .green)
            case let .overlay(mask, color, opacity):
                canvas.overlay(mask: mask.float32Values, maskWidth: mask.width, maskHeight: mask.height, Self.color(color), opacity: opacity)
            case let .segment(from, to, width, color):
                canvas.drawLine(from: pixels(from), to: pixels(to), thickness: width.pixels(longerSide: longerSide), Self.color(color))
            case let .dot(point, radius, color):
                let p = pixels(point)
                canvas.drawPoint(x: p.x, y: p.y, radius: radius.pixels(longerSide: longerSide), Self.color(color))
            case let .text(text, point, offset, line, size):
                let p = pixels(point)
                guard let x = pixelCoordinate(p.x), let y = pixelCoordinate(p.y) else { continue }
                let textScale = size.textScale(longerSide: longerSide)
                canvas.drawLabel(text, x: x + offset.x, y: y + offset.y + line * 10 * textScale, scale: textScale, .white)
            }
        }
        return canvas
    }

    static func color(_ color: MarkColor) -> Canvas.Color {
        switch color {
        case .red: return .red
        case .green: return .green
        case .blue: return .blue
        case .white: return .white
        }
    }
}
