import Foundation
package import VisionTasks

extension ObjectDetector {
    /// ML Kit's object detection and tracking as every surface takes it (the task registry): `vision-tasks odt`, the
    /// worker's and the service's `odt`. Its options keep ML Kit's names (the command line's short flags spell them);
    /// the running mode is ML Kit's detector mode: image mode is `.singleImage`, video and live-stream modes are
    /// `.stream`, whose tracking IDs last for the clip.
    package static let registration = TaskDescription(
        name: "odt", title: "ML Kit Object Detection and Tracking",
        summary: "Detect, track and classify objects as ML Kit's object detector does (video and live-stream modes track IDs across frames), with an optional custom classifier.",
        modelNames: ["ssd_mobilenet_v1.tflite"],
        options: [
            .read("localModel", .path, default: .text(""),
                  help: "A custom image classifier (.tflite with labels in its metadata) that labels each object; turns classification on")
                .spelled("classifier").only(.commandLine),
            .read("labelsPath", .path, default: .text(""),
                  help: "With --classifier: a label file (one per line, in class order) for a classifier whose metadata has none")
                .spelled("labels").only(.commandLine),
            .read("shouldEnableMultipleObjects", .flag, default: .flag(false),
                  help: "Up to five objects (otherwise only the most prominent)")
                .spelled("multiple"),
            .read("shouldEnableClassification", .flag, default: .flag(false),
                  help: "Label objects: the classifier's labels, or without one the detector's own classes")
                .spelled("classify"),
            .read("maxPerObjectLabelCount", .integer(OptionBounds.labels), default: .integer(10), help: "Most labels per object")
                .spelled("max-labels").only(.commandLine),
            .read("classificationConfidenceThreshold", .number(-Float.greatestFiniteMagnitude...Float.greatestFiniteMagnitude), default: .number(-1),
                  help: "Least label confidence, in [0, 1]; any other value takes the classifier's metadata threshold, else 0 (ML Kit's rule)")
                .spelled("threshold").only(.commandLine),
        ],
        runningModes: [.image, .video, .liveStream],
        open: { setup in try ObjectTrackingSession(setup) }
    ).with { $0.catalog = .mlKit }

    /// Bounds of the options above.
    enum OptionBounds {
        /// ML Kit's classifier keeps at most this many labels per object anyway.
        static let labels = 1...1000
    }
}

/// ML Kit's detector behind the surfaces' ``TaskSession``. ML Kit's detector has no way to start over, so a new clip
/// gets a new one (the models are read again: an mmap and a plan, no copy of the weights).
final class ObjectTrackingSession: TaskSession, @unchecked Sendable {
    // @unchecked: `detector` is replaced under `lock` only; the detector itself is Sendable.
    private let configuration: ObjectDetectorConfiguration
    private let runningMode: RunningMode
    private let lock = NSLock()
    private var detector: ObjectDetector
    private let liveStreamHandler: LiveStreamHandler?
    /// Live-stream frames handed to the detector and not yet answered.
    private let inFlight = DispatchGroup()

    init(_ setup: TaskSetup) throws(VisionTaskError) {
        func value(_ name: String) -> TaskOptionValue? { setup.values[name] }
        var classifier: String?, labels: String?
        if case let .text(path)? = value("localModel"), !path.isEmpty { classifier = path }
        if case let .text(path)? = value("labelsPath"), !path.isEmpty { labels = path }
        let options: CommonObjectDetectorOptions
        if let classifier {
            let custom = CustomObjectDetectorOptions(localModel: labels.map { LocalModel(path: classifier, labelsPath: $0) } ?? LocalModel(path: classifier))
            if case let .integer(count)? = value("maxPerObjectLabelCount") { custom.maxPerObjectLabelCount = count }
            if case let .number(threshold)? = value("classificationConfidenceThreshold") {
                custom.classificationConfidenceThreshold = NSNumber(value: threshold)
            }
            options = custom
        } else {
            guard labels == nil else { throw .invalidOption(name: "labelsPath", reason: "a label file goes with a classifier (localModel)") }
            options = ObjectDetectorOptions()
        }
        options.detectorModelPath = setup.modelPath
        options.detectorMode = setup.runningMode == .image ? .singleImage : .stream
        if case let .flag(on)? = value("shouldEnableMultipleObjects") { options.shouldEnableMultipleObjects = on }
        if case let .flag(on)? = value("shouldEnableClassification") { options.shouldEnableClassification = on }
        if classifier != nil { options.shouldEnableClassification = true }
        options.numThreads = setup.threads
        // Checked here, as every task's base options are: ML Kit's factory never fails, and a bad value would only
        // come back from the first image as a model that did not load.
        let base = BaseOptions()
        base.modelAssetPath = setup.modelPath
        base.numThreads = setup.threads
        try base.validate()
        guard setup.runningMode != .liveStream || setup.liveStreamHandler != nil else { throw .missingLiveStreamDelegate }
        configuration = ObjectDetectorConfiguration(options)
        runningMode = setup.runningMode
        liveStreamHandler = setup.liveStreamHandler
        detector = try Self.detector(configuration)
    }

    /// A detector whose models loaded, or the reason they did not as the task's error: the model's or engine's own
    /// error where there is one (a missing file is not the wrong model), else the wrong model (a classifier without
    /// labels to name objects with).
    private static func detector(_ configuration: ObjectDetectorConfiguration) throws(VisionTaskError) -> ObjectDetector {
        let detector = ObjectDetector(configuration)
        if let failure = detector.loadFailure { throw detector.loadCause ?? .wrongModel("\(failure)") }
        return detector
    }

    private var current: ObjectDetector {
        lock.lock(); defer { lock.unlock() }
        return detector
    }

    func answer(_ image: MPImage, timestamp: Int?) throws(VisionTaskError) -> TaskAnswer {
        let objects: [Object]
        do { objects = try current.results(in: VisionImage(image: image)) } catch {
            throw Self.taskError(error)
        }
        return Self.answer(objects)
    }

    func answerAsync(_ image: MPImage, timestamp: Int) throws(VisionTaskError) {
        guard runningMode == .liveStream, let handler = liveStreamHandler else {
            throw .wrongRunningMode(method: "answerAsync", runningMode: runningMode)
        }
        inFlight.enter()
        current.process(VisionImage(image: image)) { [inFlight] objects, error in
            defer { inFlight.leave() }
            if let objects {
                handler(timestamp, .result(Self.answer(objects)))
            } else if case .frameDropped? = error as? ObjectDetectionError {
                handler(timestamp, .dropped)
            } else {
                handler(timestamp, .failure(Self.taskError(error ?? ObjectDetectionError.processingFailed("no result"))))
            }
        }
    }

    func waitUntilIdle() { inFlight.wait() }

    func startNewVideo() throws(VisionTaskError) {
        let fresh = try Self.detector(configuration)
        lock.lock(); defer { lock.unlock() }
        detector = fresh
    }

    var stageTimings: [NamedStageTimings] { [] }

    /// ML Kit's errors as the task errors every surface reports: a model that did not load is the wrong model.
    private static func taskError(_ error: any Error) -> VisionTaskError {
        switch error {
        case let error as VisionTaskError: return error
        case let error as ImageError: return .image(error)
        case let error as ObjectDetectionError:
            switch error {
            case .modelUnavailable, .modelNotDownloaded: return .wrongModel("\(error)")
            case .frameDropped, .processingFailed: return .processingFailed("\(error)")
            }
        default: return .processingFailed("\(error)")
        }
    }

    /// The objects as the surfaces show them: `objects` (box in pixels, tracking ID or null, labels), a summary line
    /// with each object's ID and first label, and boxes so labelled.
    static func answer(_ objects: [Object]) -> TaskAnswer {
        func name(_ object: Object) -> String {
            (object.trackingID.map { "#\($0) " } ?? "") + (object.labels.first.map { String(format: "%@ %.2f", $0.text, $0.confidence) } ?? "")
        }
        let json = objects.map { object -> [String: Any] in
            let frame = object.frame
            return ["frame": ["x": Double(frame.minX), "y": Double(frame.minY), "width": Double(frame.width), "height": Double(frame.height)],
                    "trackingID": object.trackingID.map { $0.intValue as Any } ?? NSNull(),
                    "labels": object.labels.map { ["text": $0.text, "confidence": Double($0.confidence), "index": $0.index] }]
        }
        let summary = "\(objects.count) object(s)" + objects.map { object in
            " [\(object.trackingID.map { "#\($0) " } ?? "")\(object.labels.first?.text ?? "unlabelled")]"
        }.joined()
        return TaskAnswer(json: ["objects": json], summary: summary, marks: objects.map { .box($0.frame, label: name($0)) })
    }
}
