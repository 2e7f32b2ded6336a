import Foundation
import VisionTasks
import VisionTasksResultJSON

/// The tasks the service runs, by their route (`POST /v1/{task}`): every task of VisionTasks' task registry
/// (``RegisteredTask``) under its command name, which brings its models and options with it.
public struct TaskKind: RawRepresentable, Hashable, Sendable, Codable {
    public let rawValue: String

    public init?(rawValue: String) {
        guard Self.allCases.contains(where: { $0.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    private init(_ name: String) { rawValue = name }

    public static let allCases: [TaskKind] = RegisteredTask.all.map { TaskKind($0.name) }

    /// The registered task behind this kind.
    var registered: RegisteredTask? { RegisteredTask.named(rawValue) }

    /// The bundles and models this task takes, under the names MediaPipe ships them; the first one present in the
    /// models folder is the default (`?model=NAME` picks another).
    public var modelNames: [String] { registered?.modelNames ?? [] }
}

/// Everything that makes one task instance differ from another: the task, its model and its options. Instances
/// are pooled by this key; a request checks out one built with exactly its settings.
struct TaskSetup: Hashable, Sendable {
    let kind: TaskKind
    let modelName: String
    let modelPath: String
    /// Option values by MediaPipe's names, as given (a list's repeated parameters joined by commas), each checked by
    /// the task's description.
    let options: [String: String]

    /// Parameters every task takes besides its options.
    static let commonParameters: Set<String> = ["model", "name", "rotationDegrees", "maxFrames"]

    /// The setup a request's query asks for. Unknown names, values of the wrong type and unknown models are
    /// ``RequestError/badRequest(_:)`` with a message naming the parameter.
    init(kind: TaskKind, query: [(key: String, value: String)], catalog: ModelCatalog) throws(RequestError) {
        self.kind = kind
        let requested = query.last(where: { $0.key == "model" })?.value
        guard let model = catalog.model(for: kind, named: requested) else {
            if let requested {
                let available = catalog.models.filter { $0.task == kind }.map(\.name)
                throw .badRequest("model '\(requested)' is not a \(kind.rawValue) model of this service (available: \(available.joined(separator: ", ")))")
            }
            throw .notFound("no \(kind.rawValue) model is loaded")
        }
        modelName = model.name
        modelPath = model.path
        var options: [String: String] = [:]
        guard let registered = kind.registered else { throw .notFound("no task '\(kind.rawValue)'") }
        for (key, value) in query where !Self.commonParameters.contains(key) {
            guard registered.optionNames.contains(key) else { throw .badRequest(Self.unknownParameter(key, kind, options: registered.optionNames)) }
            do { try registered.check(option: key, value: value) } catch { throw .badRequest("\(error)") }
            // Repeated names of a list option add to it (`categoryAllowlist=cat&categoryAllowlist=dog`); any other
            // option given twice is a malformed request, refused rather than one of its values picked silently.
            if registered.isList(option: key) {
                options[key] = options[key].map { $0 + "," + value } ?? value
            } else {
                guard options[key] == nil else { throw .badRequest("parameter '\(key)' is given more than once (only list options repeat)") }
                options[key] = value
            }
        }
        self.options = options
    }

    private static func unknownParameter(_ key: String, _ kind: TaskKind, options: [String]) -> String {
        "unknown parameter '\(key)' for \(kind.rawValue) (options: \(options.sorted().joined(separator: ", ")); also \(commonParameters.sorted().joined(separator: ", ")))"
    }

    /// Builds a task instance with these settings in `mode` (image, or video for one clip). Throws the task's typed
    /// error: ``VisionTaskError/invalidOption(name:reason:)`` for an option out of its range.
    func makeInstance(mode: RunningMode, threads: Int) throws -> TaskInstance {
        guard let registered = kind.registered else { throw RequestError.notFound("no task '\(kind.rawValue)'") }
        let session = try registered.session(modelPath: modelPath, video: mode == .video, threads: threads, options: options)
        return TaskInstance(task: session, image: { try session.answer($0, timestamp: nil) }, frame: { try session.answer($0, timestamp: $1) })
    }
}

/// One task instance, used by one request at a time (the pool hands it out and takes it back): MediaPipe's graphs
/// keep per-stream state (timestamps, tracking), so an instance is never shared by concurrent requests.
final class TaskInstance: @unchecked Sendable {
    // @unchecked: the pool gives an instance to one request at a time; nothing here is touched concurrently.
    private let task: AnyObject
    private let image: (MPImage) throws -> [String: Any]
    private let frame: (MPImage, Int) throws -> [String: Any]

    init(task: AnyObject, image: @escaping (MPImage) throws -> [String: Any], frame: @escaping (MPImage, Int) throws -> [String: Any]) {
        self.task = task
        self.image = image
        self.frame = frame
    }

    /// The image's result as the CLI's `--json` writes it in `results[0]`, encoded.
    func answer(image picture: MPImage, label: String) throws -> Data {
        let result = try image(picture)
        return try ReferenceJSON.encoded(ReferenceJSON.entry(image: label, width: picture.width, height: picture.height, timestamp: nil, result: result))
    }

    /// A video frame's result as the CLI's `--jsonl` writes it: one line.
    func answer(frame picture: MPImage, timestamp: Int, label: String) throws -> Data {
        let result = try frame(picture, timestamp)
        return try ReferenceJSON.line(ReferenceJSON.entry(image: label, width: picture.width, height: picture.height, timestamp: timestamp, result: result))
    }
}
