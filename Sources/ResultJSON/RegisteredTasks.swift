import Foundation
import VisionTasks

/// The tasks of VisionTasks' task registry as the HTTP service (Server/, a package of its own, which sees only public
/// API) takes them: name, models, options, and a session answering images and frames with the reference JSON the
/// command line writes. Adding a task to the registry adds it to the service.
public struct RegisteredTask: Sendable {
    let task: TaskDescription

    /// Every registered task, in the registry's order.
    public static var all: [RegisteredTask] { TaskRegistry.tasks.map(RegisteredTask.init) }

    public static func named(_ name: String) -> RegisteredTask? { TaskRegistry.task(named: name).map(RegisteredTask.init) }

    /// The route and command name: `face-detector`.
    public var name: String { task.name }
    /// The models it takes under the names MediaPipe ships them; the first one found is the default.
    public var modelNames: [String] { task.modelNames }
    /// Its options, by MediaPipe's names (those the service offers).
    public var optionNames: [String] { task.options(on: .service).map(\.name) }
    /// Whether it has a video mode (`POST /v1/{task}/video`).
    public var hasVideoMode: Bool { task.runningModes.contains(.video) }

    /// Whether the option is a list of names, which repeated parameters add to (the service refuses any other
    /// option given twice).
    public func isList(option name: String) -> Bool { serviceOption(named: name)?.kind == .names }

    private func serviceOption(named name: String) -> TaskOptionDescription? {
        task.options(on: .service).first { $0.name == name }
    }

    /// Checks one option's text as the command line checks it; the error's description names the option.
    public func check(option name: String, value text: String) throws {
        guard let option = serviceOption(named: name) else {
            throw RegisteredTaskError("unknown parameter '\(name)' for \(task.name) (options: \(optionNames.sorted().joined(separator: ", ")))")
        }
        do { _ = try option.value(parsing: text, label: name, on: .service) } catch { throw RegisteredTaskError(error.description) }
    }

    /// A session in image mode, or video mode for one clip; `options` by MediaPipe's names, each value as
    /// ``check(option:value:)`` takes it (a list's names joined by commas). Throws ``VisionTaskError`` for a model
    /// the task refuses.
    public func session(modelPath: String, video: Bool, threads: Int?, options: [String: String]) throws -> RegisteredTaskSession {
        guard !video || hasVideoMode else { throw RegisteredTaskError("\(task.name) has no video mode (it takes images only)") }
        var values: [String: TaskOptionValue] = [:]
        for (name, text) in options {
            guard let option = serviceOption(named: name) else { throw RegisteredTaskError("unknown parameter '\(name)' for \(task.name)") }
            do { values[name] = try option.value(parsing: text, label: name, on: .service) } catch { throw RegisteredTaskError(error.description) }
        }
        return RegisteredTaskSession(try task.open(TaskSetup(modelPath: modelPath, runningMode: video ? .video : .image,
                                                             threads: threads, values: values)))
    }
}

/// A registered task's instance for the service: one request at a time.
public final class RegisteredTaskSession: Sendable {
    let session: any TaskSession

    init(_ session: any TaskSession) { self.session = session }

    /// The result of an image (`timestamp` nil) or a video frame, as ``ReferenceJSON/entry(image:width:height:timestamp:result:)``'s `result`.
    public func answer(_ image: MPImage, timestamp: Int?) throws -> [String: Any] {
        try session.answer(image, timestamp: timestamp).json
    }
}

/// A request's option a registered task refuses, with the command line's message.
public struct RegisteredTaskError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
