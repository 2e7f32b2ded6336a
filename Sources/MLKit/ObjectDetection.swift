import Dispatch
import Synchronization
internal import VisionTasks
import VisionTasksModelFormat

/// How a detector is used (ML Kit's `ObjectDetectorMode`): a live stream, where objects keep tracking IDs from frame
/// to frame, or unrelated single images.
public enum ObjectDetectorMode: Sendable {
    case stream
    case singleImage
}

/// Options every ML Kit object detector takes (ML Kit's `CommonObjectDetectorOptions`).
public class CommonObjectDetectorOptions: @unchecked Sendable {
    // @unchecked: plain settings, read once when a detector is made from them.
    /// `.stream` (the default) tracks objects across frames; `.singleImage` gives no tracking IDs.
    public var detectorMode: ObjectDetectorMode = .stream
    /// false (the default): only the most prominent object (the detector's best-scoring one); true: up to five.
    public var shouldEnableMultipleObjects = false
    /// Whether objects carry labels: the custom classifier's, or the detector's own (COCO names) without one.
    public var shouldEnableClassification = false
    /// The class-agnostic detector's model. ML Kit's own detector is not public; ours is SSD MobileNet v1 (COCO, uint8).
    /// When nil: the path in the environment variable `VISION_TASKS_OBJECT_DETECTOR_MODEL`, else
    /// `Models/ssd_mobilenet_v1.tflite` under the working directory. (Not an ML Kit option.)
    public var detectorModelPath: String?
    /// Threads per model run; nil for every core. (Not an ML Kit option.)
    public var numThreads: Int?

    init() {}

    /// Detections below this score are not objects (the SSD's scores for real objects start around 0.3; its
    /// post-processing keeps ten boxes whatever they score).
    static let detectionThreshold: Float = 0.3
    /// The most objects with `shouldEnableMultipleObjects`, as ML Kit.
    static let maximumObjects = 5

    var resolvedDetectorPath: String {
        detectorModelPath ?? ProcessInfo.processInfo.environment["VISION_TASKS_OBJECT_DETECTOR_MODEL"]
            ?? FileManager.default.currentDirectoryPath + "/Models/ssd_mobilenet_v1.tflite"
    }
}

/// ML Kit's options for its base detector (no custom classifier): with classification on, objects carry the
/// detector's own labels.
public final class ObjectDetectorOptions: CommonObjectDetectorOptions, @unchecked Sendable {
    public override init() {}
}

/// ML Kit's options for a detector whose objects a custom image classifier labels.
public final class CustomObjectDetectorOptions: CommonObjectDetectorOptions, @unchecked Sendable {
    public let localModel: LocalModel?
    public let remoteModel: RemoteModel?
    /// The least confidence a label needs, in [0, 1]. Unset or outside [0, 1] (NaN included), the classifier's
    /// metadata threshold is used, else 0 — as ML Kit documents it (an invalid value is not an error there).
    public var classificationConfidenceThreshold: NSNumber?
    /// The most labels per object; unset or not positive, ML Kit's default 10.
    public var maxPerObjectLabelCount = 10

    /// ML Kit's rule for `classificationConfidenceThreshold`: the option when it is in [0, 1], else the model
    /// metadata's threshold, else 0.
    package static func labelThreshold(requested: NSNumber?, metadata: Float?) -> Float {
        if let value = requested?.floatValue, (0...1).contains(value) { return value }
        return metadata ?? 0
    }

    /// ML Kit's rule for `maxPerObjectLabelCount`: the option when positive, else 10.
    package static func labelCount(requested: Int) -> Int { requested > 0 ? requested : 10 }

    public init(localModel: LocalModel) {
        self.localModel = localModel
        remoteModel = nil
    }

    /// A downloaded remote model (``ModelManager``); processing fails with ``ObjectDetectionError/modelNotDownloaded``
    /// until it is.
    public init(remoteModel: RemoteModel) {
        localModel = nil
        self.remoteModel = remoteModel
    }
}

/// An image to process (ML Kit's `VisionImage`) and the orientation its pixels are to be read in.
public final class VisionImage: @unchecked Sendable {
    // @unchecked: `orientation` is set by the caller before the image is handed over, as ML Kit's guide does.
    public let image: MPImage
    public var orientation: ImageOrientation

    public init(image: MPImage) {
        self.image = image
        orientation = image.orientation
    }
}

/// A label of an object (ML Kit's `ObjectLabel`): the class name, the classifier's confidence and the class index.
public final class ObjectLabel: Sendable, CustomStringConvertible {
    public let text: String
    public let confidence: Float
    public let index: Int

    init(text: String, confidence: Float, index: Int) {
        self.text = text
        self.confidence = confidence
        self.index = index
    }

    public var description: String { "\(text) \(confidence) #\(index)" }
}

/// An object found (ML Kit's `Object`): its box in image pixels, its tracking ID in stream mode, its labels.
public final class Object: @unchecked Sendable {
    // @unchecked: immutable; NSNumber is not marked Sendable on Linux.
    public let frame: CGRect
    /// Stays the same while the object stays in view, frame after frame; never reused. nil in single-image mode.
    public let trackingID: NSNumber?
    public let labels: [ObjectLabel]

    init(frame: CGRect, trackingID: NSNumber?, labels: [ObjectLabel]) {
        self.frame = frame
        self.trackingID = trackingID
        self.labels = labels
    }
}

/// Why an image was not processed.
public enum ObjectDetectionError: Error, Sendable, CustomStringConvertible {
    /// The detector or classifier model could not be loaded (missing file, wrong model); the message says which.
    case modelUnavailable(String)
    /// The options name a remote model that is not downloaded (see `ModelManager.isModelDownloaded`).
    case modelNotDownloaded(name: String)
    /// A stream-mode frame passed to `process` while the previous one was still being processed: not processed.
    case frameDropped
    /// The image could not be processed.
    case processingFailed(String)

    public var description: String {
        switch self {
        case let .modelUnavailable(reason): return "model unavailable: \(reason)"
        case let .modelNotDownloaded(name): return "the remote model '\(name)' is not downloaded"
        case .frameDropped: return "frame dropped: the previous stream frame was still being processed"
        case let .processingFailed(reason): return "processing failed: \(reason)"
        }
    }
}

/// ML Kit's object detector: finds objects (class-agnostic SSD), tracks them across stream frames, and labels them
/// with a custom image classifier (each object's box cropped from the image, turned as the image, classified) or with
/// the detector's own classes.
///
/// `results(in:)` runs on the caller's thread; `process(_:completion:)` runs on a queue of the detector's and calls
/// `completion` on another serial queue, in order (Linux has no main run loop to call back on).
public final class ObjectDetector: @unchecked Sendable {
    // @unchecked: the models and the tracker sit behind `state`'s lock.
    private struct Models {
        let detector: VisionTasks.ObjectDetector
        let detectorLabels: [String: Int]
        let classifier: ImageClassifier?
        /// Labels below this confidence are left out (``CustomObjectDetectorOptions/labelThreshold(requested:metadata:)``).
        let labelThreshold: Float
    }

    private struct Track {
        let id: Int
        var box: CGRect
        /// The box's move over its last matched frame, for the next frame's prediction.
        var motion: (dx: CGFloat, dy: CGFloat) = (0, 0)
        /// Frames in a row the track has gone unmatched.
        var missed = 0

        /// Where the box should be now: moved on by its last motion for each frame since.
        var predicted: CGRect { box.offsetBy(dx: motion.dx * CGFloat(missed + 1), dy: motion.dy * CGFloat(missed + 1)) }
    }

    private struct Tracker {
        var tracks: [Track] = []
        var nextID = 0
    }

    /// Frames a track survives unmatched (a detection that flickers below the threshold keeps its ID).
    static let trackMemory = 3

    private let mode: ObjectDetectorMode
    private let multiple: Bool
    private let classify: Bool
    private let models: Result<Models, ObjectDetectionError>
    private let state = Locked(Tracker())
    private let busy = Atomic<Bool>(false)
    private let work = DispatchQueue(label: "vision-tasks.mlkit.object-detector")
    private let delivery = DispatchQueue(label: "vision-tasks.mlkit.object-detector.delivery")

    /// A detector for `options` (ML Kit's factory does not fail: a model that cannot be loaded makes every call fail
    /// with ``ObjectDetectionError/modelUnavailable(_:)`` instead).
    public static func objectDetector(options: CommonObjectDetectorOptions) -> ObjectDetector {
        ObjectDetector(options)
    }

    private init(_ options: CommonObjectDetectorOptions) {
        mode = options.detectorMode
        multiple = options.shouldEnableMultipleObjects
        classify = options.shouldEnableClassification
        models = Result { () throws(ObjectDetectionError) -> Models in try Self.load(options) }
    }

    private static func load(_ options: CommonObjectDetectorOptions) throws(ObjectDetectionError) -> Models {
        let detectorOptions = VisionTasks.ObjectDetectorOptions()
        detectorOptions.baseOptions.modelAssetPath = options.resolvedDetectorPath
        detectorOptions.baseOptions.numThreads = options.numThreads
        detectorOptions.scoreThreshold = CommonObjectDetectorOptions.detectionThreshold
        let detector: VisionTasks.ObjectDetector
        do { detector = try VisionTasks.ObjectDetector(options: detectorOptions) } catch {
            throw .modelUnavailable("detector \(options.resolvedDetectorPath): \(error)")
        }
        var labels: [String: Int] = [:]
        for (index, label) in (detector.classLabels ?? []).enumerated() where labels[label] == nil { labels[label] = index }
        var classifier: ImageClassifier?
        var threshold: Float = 0
        if let custom = options as? CustomObjectDetectorOptions, options.shouldEnableClassification {
            let path: String
            var labels: [String]?
            if let local = custom.localModel {
                path = local.path
                if let labelsPath = local.labelsPath {
                    // Through the model reader's open: a FIFO or device named as the label file is refused, not waited on.
                    let text: String
                    do { text = String(decoding: try ByteSlice.mapping(path: labelsPath).bytes, as: UTF8.self) } catch {
                        throw .modelUnavailable("cannot read the label file \(labelsPath): \(error)")
                    }
                    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) }
                    while lines.last?.isEmpty == true { lines.removeLast() }
                    labels = lines
                }
            } else if let remote = custom.remoteModel {
                guard let downloaded = ModelManager.modelManager().downloadedModelPath(remote) else {
                    throw .modelNotDownloaded(name: remote.name)
                }
                path = downloaded
            } else {
                throw .modelUnavailable("no classifier model")
            }
            let classifierOptions = ImageClassifierOptions()
            classifierOptions.baseOptions.modelAssetPath = path
            classifierOptions.baseOptions.numThreads = options.numThreads
            classifierOptions.maxResults = CustomObjectDetectorOptions.labelCount(requested: custom.maxPerObjectLabelCount)
            // Every score is kept here; the threshold (which may come from the metadata) is applied to the labels.
            classifierOptions.scoreThreshold = 0
            classifierOptions.fallbackLabels = labels
            do { classifier = try ImageClassifier(options: classifierOptions) } catch {
                throw .modelUnavailable("classifier \(path): \(error)")
            }
            guard let loaded = classifier, loaded.hasLabels else {
                throw .modelUnavailable("classifier \(path) has no labels in its metadata to name objects with")
            }
            threshold = CustomObjectDetectorOptions.labelThreshold(requested: custom.classificationConfidenceThreshold,
                                                                   metadata: loaded.metadataScoreThreshold)
        }
        return Models(detector: detector, detectorLabels: labels, classifier: classifier, labelThreshold: threshold)
    }

    /// The objects in `image`, on the caller's thread (ML Kit's synchronous API).
    public func results(in image: VisionImage) throws -> [Object] {
        try detect(image)
    }

    /// Processes `image` on the detector's queue and calls `completion` with the objects or an error, in order. In
    /// stream mode a frame that arrives while the previous one is processed is dropped (completion gets
    /// ``ObjectDetectionError/frameDropped``), as ML Kit's live detection keeps up with a camera.
    public func process(_ image: VisionImage, completion: @escaping @Sendable ([Object]?, (any Error)?) -> Void) {
        if mode == .stream, !busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            delivery.async { completion(nil, ObjectDetectionError.frameDropped) }
            return
        }
        work.async { [self] in
            let outcome = Result { try detect(image) }
            if mode == .stream { busy.store(false, ordering: .releasing) }
            delivery.async {
                switch outcome {
                case let .success(objects): completion(objects, nil)
                case let .failure(error): completion(nil, error)
                }
            }
        }
    }

    private func detect(_ input: VisionImage) throws -> [Object] {
        let models = try models.get()
        let image = input.image.withOrientation(input.orientation)
        let found: [Detection]
        do { found = try models.detector.detect(image: image).detections } catch {
            throw ObjectDetectionError.processingFailed("\(error)")
        }
        let kept = Array(found.prefix(multiple ? CommonObjectDetectorOptions.maximumObjects : 1))
        var labels: [[ObjectLabel]] = []
        for detection in kept {
            guard classify else { labels.append([]); continue }
            if let classifier = models.classifier {
                labels.append(try Self.classify(detection.boundingBox, in: image, with: classifier)
                    .filter { $0.confidence >= models.labelThreshold })
            } else {
                labels.append(detection.categories.map { category in
                    let name = category.categoryName ?? ""
                    return ObjectLabel(text: name, confidence: category.score, index: models.detectorLabels[name] ?? category.index)
                })
            }
        }
        let ids: [Int?] = mode == .stream ? track(kept.map(\.boundingBox)) : kept.map { _ in nil }
        return zip(kept, zip(ids, labels)).map { detection, rest in
            Object(frame: detection.boundingBox, trackingID: rest.0.map { NSNumber(value: $0) }, labels: rest.1)
        }
    }

    private static func classify(_ box: CGRect, in image: MPImage, with classifier: ImageClassifier) throws -> [ObjectLabel] {
        guard let crop = image.cropped(x: Int(box.minX), y: Int(box.minY), width: Int(box.width), height: Int(box.height)) else {
            return []
        }
        let result: ImageClassifierResult
        do { result = try classifier.classify(image: crop) } catch { throw ObjectDetectionError.processingFailed("\(error)") }
        return (result.classificationResult.classifications.first?.categories ?? []).map {
            ObjectLabel(text: $0.categoryName ?? "", confidence: $0.score, index: $0.index)
        }
    }

    /// Tracking IDs for this frame's boxes, by overlap and motion: each track (an object seen in the last
    /// ``trackMemory`` frames) is compared with each box at its last place and at its place predicted from its last
    /// move; pairs are taken in order of decreasing overlap (IoU ≥ 0.3), each box and each track at most once, and a
    /// paired box keeps the track's ID. Other boxes start new tracks with new IDs, never reused; tracks unmatched for
    /// longer than the memory end.
    private func track(_ boxes: [CGRect]) -> [Int?] {
        state.withLock { tracker in
            var pairs: [(box: Int, track: Int, overlap: Double)] = []
            for (b, box) in boxes.enumerated() {
                for (t, track) in tracker.tracks.enumerated() {
                    let overlap = max(Self.intersectionOverUnion(box, track.box), Self.intersectionOverUnion(box, track.predicted))
                    if overlap >= 0.3 { pairs.append((b, t, overlap)) }
                }
            }
            pairs.sort { $0.overlap != $1.overlap ? $0.overlap > $1.overlap : ($0.box, $0.track) < ($1.box, $1.track) }
            var ids = [Int?](repeating: nil, count: boxes.count), matched = Set<Int>()
            for pair in pairs where ids[pair.box] == nil && !matched.contains(pair.track) {
                let box = boxes[pair.box], old = tracker.tracks[pair.track]
                ids[pair.box] = old.id
                matched.insert(pair.track)
                let frames = CGFloat(old.missed + 1)
                tracker.tracks[pair.track].motion = (dx: (box.midX - old.box.midX) / frames, dy: (box.midY - old.box.midY) / frames)
                tracker.tracks[pair.track].box = box
                tracker.tracks[pair.track].missed = 0
            }
            for t in tracker.tracks.indices where !matched.contains(t) { tracker.tracks[t].missed += 1 }
            tracker.tracks.removeAll { $0.missed > Self.trackMemory }
            for b in boxes.indices where ids[b] == nil {
                ids[b] = tracker.nextID
                tracker.tracks.append(Track(id: tracker.nextID, box: boxes[b]))
                tracker.nextID += 1
            }
            return ids
        }
    }

    static func intersectionOverUnion(_ a: CGRect, _ b: CGRect) -> Double {
        let intersection = a.intersection(b)
        guard !intersection.isNull, intersection.width > 0, intersection.height > 0 else { return 0 }
        let shared = Double(intersection.width * intersection.height)
        return shared / (Double(a.width * a.height) + Double(b.width * b.height) - shared)
    }
}
