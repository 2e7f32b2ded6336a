import ArgumentParser
import Foundation
import VisionTasks
import VisionTasksResultJSON

// The line protocol of `vision-tasks worker` (WorkerCommand.swift): how request lines are read and parsed, and how
// answer lines are written. Everything here refuses bad input with a `WorkerFailure` (one error line) and never ends
// the process.

/// Why a request failed: the `type` and `message` of its error line.
struct WorkerFailure: Error {
    enum Kind: String {
        /// Not a JSON object, a missing or mistyped field, a line too long.
        case badRequest
        /// `task` names no task of the CLI.
        case unknownTask
        /// An option the task does not take, or a value the CLI's parser refuses (its own message).
        case badOptions
        /// The model file is missing, damaged or of another task.
        case modelError
        /// The input is missing, not an image or video, or a video that fails to decode.
        case inputError
        /// The task refused a frame.
        case processingError
    }

    let kind: Kind
    let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

/// One request line, checked field by field.
struct WorkerRequest {
    enum Mode: String { case image, video }

    /// The request's `id`, serialized once as JSON (any JSON value the caller chose) and echoed in every answer line.
    let idJSON: Data
    let task: WorkerTask
    let model: String
    let input: String
    let mode: Mode
    /// The options as the CLI's arguments (`--num-poses=1`), in a fixed order.
    let arguments: [String]
    /// Video only: frames from `startMs` (inclusive) to `endMs` (exclusive) are emitted. Frames before `startMs`
    /// are run but not emitted: all of them by default, or only the last `preRollMs`' worth.
    let startMs: Int
    let endMs: Int?
    let preRollMs: Int?

    /// An id to answer with when the line has none that can be read.
    static let nullID = Data("null".utf8)

    /// A request refused, with the id it had (to answer with), or `null`.
    struct Rejected: Error {
        let idJSON: Data
        let failure: WorkerFailure

        init(_ idJSON: Data, _ failure: WorkerFailure) {
            self.idJSON = idJSON
            self.failure = failure
        }
    }

    /// Parses `line`; on failure returns the id it found (to answer with) beside the failure.
    static func parse(_ line: Data) -> Result<WorkerRequest, Rejected> {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: line, options: []) } catch {
            return .failure(Rejected(nullID, WorkerFailure(.badRequest, "not JSON: \(String(decoding: line.prefix(200), as: UTF8.self))")))
        }
        guard let fields = object as? [String: Any] else {
            return .failure(Rejected(nullID, WorkerFailure(.badRequest, "a request is a JSON object")))
        }
        var idJSON = nullID
        if let id = fields["id"], let data = try? JSONSerialization.data(withJSONObject: id, options: [.fragmentsAllowed, .sortedKeys]) {
            idJSON = data
        }
        do {
            return .success(try WorkerRequest(fields, idJSON: idJSON))
        } catch {
            return .failure(Rejected(idJSON, error as? WorkerFailure ?? WorkerFailure(.badRequest, "\(error)")))
        }
    }

    private init(_ fields: [String: Any], idJSON: Data) throws {
        let known: Set<String> = ["id", "task", "model", "input", "mode", "options", "startMs", "endMs", "preRollMs"]
        if let unknown = fields.keys.filter({ !known.contains($0) }).sorted().first {
            throw WorkerFailure(.badRequest, "unknown field '\(unknown)' (a request has \(known.sorted().joined(separator: ", ")))")
        }
        guard fields["id"] != nil else { throw WorkerFailure(.badRequest, "a request needs an 'id'") }
        self.idJSON = idJSON
        let taskName = try Self.string(fields, "task")
        guard let task = WorkerTask(name: taskName) else {
            throw WorkerFailure(.unknownTask, "unknown task '\(taskName)' (one of \(WorkerTask.names.joined(separator: ", ")))")
        }
        self.task = task
        model = try Self.string(fields, "model")
        input = try Self.string(fields, "input")
        if fields["mode"] != nil {
            let name = try Self.string(fields, "mode")
            guard let mode = Mode(rawValue: name) else { throw WorkerFailure(.badRequest, "'mode' is image or video (got '\(name)')") }
            self.mode = mode
        } else {
            mode = TaskCommandOptions.isImage(input) ? .image : .video
        }
        let options: [String: Any]
        switch fields["options"] {
        case nil, is NSNull: options = [:]
        case let dictionary as [String: Any]: options = dictionary
        default: throw WorkerFailure(.badRequest, "'options' is a JSON object")
        }
        arguments = try task.arguments(options)
        let segment = ["startMs", "endMs", "preRollMs"].filter { fields[$0] != nil && !(fields[$0] is NSNull) }
        if mode == .image, let first = segment.first {
            throw WorkerFailure(.badRequest, "'\(first)' is for video mode")
        }
        startMs = try Self.integer(fields, "startMs") ?? 0
        endMs = try Self.integer(fields, "endMs")
        preRollMs = try Self.integer(fields, "preRollMs")
        guard startMs >= 0, (preRollMs ?? 0) >= 0 else { throw WorkerFailure(.badRequest, "'startMs' and 'preRollMs' must not be negative") }
        if let endMs, endMs <= startMs { throw WorkerFailure(.badRequest, "'endMs' (\(endMs)) must be after 'startMs' (\(startMs))") }
    }

    /// Where frames start to be run. By default the clip's start: pose, face and hand tracking take each frame's
    /// region from the previous frame's landmarks, and the smoothing filters carry their past, so only a run from the
    /// start gives a segment the whole clip's results exactly (the cluster's output is the one-machine output). A
    /// `preRollMs` runs only that much before `startMs`: the segment starts cold and its results differ from the
    /// whole run's by about MediaPipe's own one-pixel spread (the loop does not forget its start bit for bit; figures
    /// in WorkerCLITests and the ClusterWorker article) — the trade for splitting a long clip across machines.
    var firstRunMs: Int {
        guard let preRollMs, preRollMs < startMs else { return 0 }
        return startMs - preRollMs
    }

    private static func string(_ fields: [String: Any], _ key: String) throws -> String {
        guard let value = fields[key] else { throw WorkerFailure(.badRequest, "a request needs '\(key)'") }
        guard let string = value as? String, !string.isEmpty else { throw WorkerFailure(.badRequest, "'\(key)' is a non-empty string") }
        return string
    }

    private static func integer(_ fields: [String: Any], _ key: String) throws -> Int? {
        guard let value = fields[key], !(value is NSNull) else { return nil }
        guard let number = JSONValue.integer(value) else { throw WorkerFailure(.badRequest, "'\(key)' is an integer (milliseconds)") }
        return number
    }
}

/// The JSON values JSONSerialization gives, told apart: on Linux `true` is an NSNumber that also converts to 1.
enum JSONValue {
    static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    static func integer(_ value: Any) -> Int? {
        guard !isBoolean(value), let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        guard double.rounded() == double, abs(double) < 9.0e15 else { return nil }
        return number.intValue
    }
}

/// The tasks a worker runs: the CLI's task commands, by their names — every registered task (``TaskRegistry``).
struct WorkerTask {
    let task: TaskDescription

    init?(name: String) {
        guard let task = TaskRegistry.task(named: name) else { return nil }
        self.task = task
    }

    var name: String { task.name }

    static var names: [String] { TaskRegistry.tasks.map(\.name) }

    /// The CLI's options each task takes in a request's `options`, by the camelCase form of their long names
    /// (`numPoses` for `--num-poses`: a registered task's MediaPipe names unless its description spells them otherwise). Outputs (`--json`, `--draw`),
    /// running modes and `--threads` are the worker's.
    var optionNames: [String] {
        task.options(on: .commandLine).map(\.workerName) + ["rotationDegrees", "orientation", "noExif", "maxFrames"]
    }

    /// Flags that exist only in their positive form: `false` means leaving them out.
    private static let plainFlags: Set<String> = ["noExif"]

    /// A request's options as the CLI's arguments, for the CLI's own parser to check (its ranges, its messages).
    func arguments(_ options: [String: Any]) throws -> [String] {
        let names = optionNames
        var arguments: [String] = []
        for key in options.keys.sorted() {
            guard names.contains(key) else {
                throw WorkerFailure(.badOptions, "\(name) takes no option '\(key)' (it takes \(names.joined(separator: ", ")))")
            }
            let value = options[key]!
            let flag = "--" + Self.kebab(key)
            if JSONValue.isBoolean(value) {
                let on = (value as! NSNumber).boolValue
                if on { arguments.append(flag) } else if !Self.plainFlags.contains(key) { arguments.append("--no-" + Self.kebab(key)) }
            } else if let number = value as? NSNumber {
                arguments.append("\(flag)=\(number)")
            } else if let string = value as? String {
                arguments.append("\(flag)=\(string)")
            } else if let list = value as? [Any], list.allSatisfy({ $0 is String }) {
                arguments += list.map { "\(flag)=\($0 as! String)" }
            } else {
                throw WorkerFailure(.badOptions, "option '\(key)' has a value of the wrong type")
            }
        }
        return arguments
    }

    /// `numPoses` → `num-poses`.
    private static func kebab(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase { out += "-" + character.lowercased() } else { out.append(character) }
        }
        return out
    }
}

/// Request lines from a file descriptor, each at most `limit` bytes: a longer line is skipped to its end and reported,
/// so no input makes the worker hold more than `limit` bytes.
struct LineReader {
    enum Line {
        case line(Data)
        case tooLong
    }

    static let limit = 1 << 20
    private let descriptor: Int32
    private var buffer = Data()
    private var skipping = false
    private var ended = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next line (without its newline), or nil at the end of input. A last line without a newline counts.
    mutating func next() -> Line? {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(buffer[buffer.startIndex..<newline])
                buffer.removeSubrange(buffer.startIndex...newline)
                // A line's end can come in the same read that takes it past the limit.
                if skipping || line.count > Self.limit {
                    skipping = false
                    return .tooLong
                }
                return .line(line)
            }
            if buffer.count > Self.limit {
                buffer.removeAll(keepingCapacity: true)
                skipping = true
            }
            if ended {
                guard !buffer.isEmpty || skipping else { return nil }
                let line = buffer
                buffer = Data()
                if skipping || line.count > Self.limit {
                    skipping = false
                    return .tooLong
                }
                return .line(line)
            }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { ended = true } else { buffer.append(contentsOf: chunk[0..<count]) }
        }
    }
}

/// Answer lines to a file descriptor, each written whole with write(2): nothing waits in a buffer.
struct LineWriter {
    let descriptor: Int32

    func write(_ line: Data) {
        var data = line
        data.append(UInt8(ascii: "\n"))
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    // The reader is gone: nobody is left to answer.
                    exit(0)
                }
                offset += written
            }
        }
    }

    /// `{"id":…,"error":{"message":…,"type":…}}`.
    func error(id: Data, _ failure: WorkerFailure) {
        let body = (try? JSONSerialization.data(withJSONObject: ["type": failure.kind.rawValue, "message": failure.message], options: [.sortedKeys]))
            ?? Data(#"{"type":"badRequest"}"#.utf8)
        write(Data(#"{"id":"#.utf8) + id + Data(#","error":"#.utf8) + body + Data("}".utf8))
    }

    /// `{"id":…,"done":true,"frames":N}`.
    func done(id: Data, frames: Int) {
        write(Data(#"{"id":"#.utf8) + id + Data(#","done":true,"frames":\#(frames)}"#.utf8))
    }

    /// A frame's line: `{"id":…,"frame":N,` followed by the CLI's `--jsonl` line after its opening brace, so the
    /// CLI's bytes are kept as they are (a client takes them back by dropping the two leading fields).
    func frame(id: Data, index: Int, entry: [String: Any]) throws {
        let line = try JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys])
        write(Data(#"{"id":"#.utf8) + id + Data(#","frame":\#(index),"#.utf8) + line.dropFirst())
    }
}
