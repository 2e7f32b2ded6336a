import Foundation
import VisionTasks
import VisionTasksResultJSON

/// The tasks the service runs, by their route (`POST /v1/{task}`): the CLI's command names — the six written here,
/// and every task of VisionTasks' task registry (``RegisteredTask``), which brings its models and options with it.
public struct TaskKind: RawRepresentable, Hashable, Sendable, Codable {
    public let rawValue: String

    public init?(rawValue: String) {
        guard Self.allCases.contains(where: { $0.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    private init(_ name: String) { rawValue = name }

    public static let face = TaskKind("face")

    public static let allCases: [TaskKind] = [.face] + RegisteredTask.all.map { TaskKind($0.name) }

    /// The registered task behind this kind, if it is one.
    var registered: RegisteredTask? { RegisteredTask.named(rawValue) }

    /// The bundles and models this task takes, under the names MediaPipe ships them; the first one present in the
    /// models folder is the default (`?model=NAME` picks another).
    public var modelNames: [String] {
        switch self {
        case .face: return ["face_landmarker.task"]
        default: return registered?.modelNames ?? []
        }
    }

    /// The query parameters that set the task's options, under MediaPipe's option names, and their types (a
    /// registered task's are checked by its description instead).
    var optionKinds: [String: OptionKind] {
        switch self {
        case .face:
            return ["numFaces": .int, "minFaceDetectionConfidence": .float, "minFacePresenceConfidence": .float,
                    "minTrackingConfidence": .float, "outputFaceBlendshapes": .bool, "outputFacialTransformationMatrixes": .bool]
        default:
            return [:]
        }
    }
}

enum OptionKind: Sendable { case int, float, bool, list }

/// A parsed option value. Floats are kept as `Float`, the options' own type, so equal settings are equal keys.
enum OptionValue: Hashable, Sendable {
    case int(Int), float(Float), bool(Bool), list([String])
    /// A registered task's value as given, checked by its description.
    case text(String)
}

/// Everything that makes one task instance differ from another: the task, its model and its options. Instances
/// are pooled by this key; a request checks out one built with exactly its settings.
struct TaskSetup: Hashable, Sendable {
    let kind: TaskKind
    let modelName: String
    let modelPath: String
    let options: [String: OptionValue]

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
        var options: [String: OptionValue] = [:]
        if let registered = kind.registered {
            for (key, value) in query where !Self.commonParameters.contains(key) {
                guard registered.optionNames.contains(key) else { throw .badRequest(Self.unknownParameter(key, kind, options: registered.optionNames)) }
                do { try registered.check(option: key, value: value) } catch { throw .badRequest("\(error)") }
                // Repeated names of a list option add to it, as the six tasks' lists do; any other option's last value
                // counts.
                if case let .text(earlier)? = options[key], registered.isList(option: key) {
                    options[key] = .text(earlier + "," + value)
                } else {
                    options[key] = .text(value)
                }
            }
            self.options = options
            return
        }
        let kinds = kind.optionKinds
        for (key, value) in query where !Self.commonParameters.contains(key) {
            guard let optionKind = kinds[key] else { throw .badRequest(Self.unknownParameter(key, kind, options: Array(kinds.keys))) }
            switch optionKind {
            case .int:
                guard let number = Int(value) else { throw .badRequest("\(key) must be an integer (got '\(value)')") }
                options[key] = .int(number)
            case .float:
                guard let number = Float(value), number.isFinite else { throw .badRequest("\(key) must be a finite number (got '\(value)')") }
                options[key] = .float(number)
            case .bool:
                switch value.lowercased() {
                case "true", "1": options[key] = .bool(true)
                case "false", "0": options[key] = .bool(false)
                default: throw .badRequest("\(key) must be true or false (got '\(value)')")
                }
            case .list:
                // Repeated parameters or commas: `categoryAllowlist=cat,dog` or `categoryAllowlist=cat&categoryAllowlist=dog`.
                let items = value.split(separator: ",").map(String.init)
                if case let .list(earlier)? = options[key] { options[key] = .list(earlier + items) } else { options[key] = .list(items) }
            }
        }
        self.options = options
    }

    private static func unknownParameter(_ key: String, _ kind: TaskKind, options: [String]) -> String {
        "unknown parameter '\(key)' for \(kind.rawValue) (options: \(options.sorted().joined(separator: ", ")); also \(commonParameters.sorted().joined(separator: ", ")))"
    }

    private func int(_ name: String) -> Int? { if case let .int(v)? = options[name] { return v }; return nil }
    private func float(_ name: String) -> Float? { if case let .float(v)? = options[name] { return v }; return nil }
    private func bool(_ name: String) -> Bool? { if case let .bool(v)? = options[name] { return v }; return nil }
    private func list(_ name: String) -> [String]? { if case let .list(v)? = options[name] { return v }; return nil }

    /// Builds a task instance with these settings in `mode` (image, or video for one clip). Throws the task's typed
    /// error: ``VisionTaskError/invalidOption(name:reason:)`` for an option out of its range.
    func makeInstance(mode: RunningMode, threads: Int) throws -> TaskInstance {
        func configure(_ options: TaskOptions) {
            options.baseOptions.modelAssetPath = modelPath
            options.baseOptions.numThreads = threads
            options.runningMode = mode
        }
        if let registered = kind.registered {
            var texts: [String: String] = [:]
            for case let (name, .text(text)) in options { texts[name] = text }
            let session = try registered.session(modelPath: modelPath, video: mode == .video, threads: threads, options: texts)
            return TaskInstance(task: session, image: { try session.answer($0, timestamp: nil) }, frame: { try session.answer($0, timestamp: $1) })
        }
        switch kind {
        case .face:
            let options = FaceLandmarkerOptions()
            configure(options)
            if let v = int("numFaces") { options.numFaces = v }
            if let v = float("minFaceDetectionConfidence") { options.minFaceDetectionConfidence = v }
            if let v = float("minFacePresenceConfidence") { options.minFacePresenceConfidence = v }
            if let v = float("minTrackingConfidence") { options.minTrackingConfidence = v }
            if let v = bool("outputFaceBlendshapes") { options.outputFaceBlendshapes = v }
            if let v = bool("outputFacialTransformationMatrixes") { options.outputFacialTransformationMatrixes = v }
            let task = try FaceLandmarker(options: options)
            return TaskInstance(task: task, image: { try task.detect(image: $0).referenceJSON },
                                frame: { try task.detect(videoFrame: $0, timestampInMilliseconds: $1).referenceJSON })
        default:
            throw RequestError.notFound("no task '\(kind.rawValue)'")
        }
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
