import Foundation
internal import VisionTasks
import VisionTasksModelFormat

/// ML Kit's per-frame work inside a ``TaskRunner``: the class-agnostic detector, the labels (a custom classifier's on
/// each object's crop, or the detector's own), and in stream mode the tracker. Its result carries ML Kit's errors: a
/// model that failed to load is every frame's error, as ML Kit's factory does not fail.
final class ObjectDetectionPipeline: FramePipeline {
    typealias Result = Swift.Result<[Object], ObjectDetectionError>

    private struct Models {
        let detector: VisionTasks.ObjectDetector
        let detectorLabels: [String: Int]
        let classifier: ImageClassifier?
        /// Labels below this confidence are left out (``CustomObjectDetectorOptions/labelThreshold(requestedValue:metadata:)``).
        let labelThreshold: Float
    }

    /// Detections below this score are not objects (the SSD's scores for real objects start around 0.3; its
    /// post-processing keeps ten boxes whatever they score).
    static let detectionThreshold: Float = 0.3
    /// The most objects with `shouldEnableMultipleObjects`, as ML Kit.
    static let maximumObjects = 5

    private let configuration: ObjectDetectorConfiguration
    private let models: Swift.Result<Models, ObjectDetectionError>
    /// The task error behind a model that did not load (a missing or corrupt file, an operator the engine does not
    /// run, a model for another task), where there is one: what the surfaces report, rather than ML Kit's message.
    let loadCause: VisionTaskError?
    /// Stream mode's; nil in single-image mode, where objects have no tracking IDs.
    private var tracker: ObjectTracker?

    init(_ configuration: ObjectDetectorConfiguration) {
        self.configuration = configuration
        var cause: VisionTaskError?
        models = Swift.Result { () throws(ObjectDetectionError) -> Models in try Self.load(configuration, cause: &cause) }
        loadCause = cause
        tracker = configuration.mode == .stream ? ObjectTracker() : nil
    }

    /// Why the models did not load, if they did not.
    var loadFailure: ObjectDetectionError? {
        guard case let .failure(error) = models else { return nil }
        return error
    }

    /// Never throws: ML Kit's errors are the result's. The timestamp is not used (ML Kit's frames have none).
    func process(_ image: MPImage, timestampMilliseconds: Int?) -> Result {
        Swift.Result { () throws(ObjectDetectionError) -> [Object] in try detect(image) }
    }

    private static func load(_ configuration: ObjectDetectorConfiguration, cause: inout VisionTaskError?) throws(ObjectDetectionError) -> Models {
        let detectorOptions = VisionTasks.ObjectDetectorOptions()
        detectorOptions.baseOptions.modelAssetPath = configuration.detectorPath
        detectorOptions.baseOptions.numThreads = configuration.numThreads
        detectorOptions.scoreThreshold = detectionThreshold
        let detector: VisionTasks.ObjectDetector
        do { detector = try VisionTasks.ObjectDetector(options: detectorOptions) } catch {
            cause = error as? VisionTaskError
            throw .modelUnavailable("detector \(configuration.detectorPath): \(error)")
        }
        var labels: [String: Int] = [:]
        for (index, label) in (detector.classLabels ?? []).enumerated() where labels[label] == nil { labels[label] = index }
        var classifier: ImageClassifier?
        var threshold: Float = 0
        if let source = configuration.classifier, configuration.classification {
            let path: String
            var labels: [String]?
            switch source {
            case let .local(local):
                path = local.path
                if let labelsPath = local.labelsPath {
                    // Through the model reader's open: a FIFO or device named as the label file is refused, not waited on.
                    let text: String
                    do { text = String(decoding: try ByteSlice.mapping(path: labelsPath).bytes, as: UTF8.self) } catch {
                        cause = .model(error)
                        throw .modelUnavailable("cannot read the label file \(labelsPath): \(error)")
                    }
                    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) }
                    while lines.last?.isEmpty == true { lines.removeLast() }
                    labels = lines
                }
            case let .remote(remote):
                guard let downloaded = ModelManager.modelManager().downloadedModelPath(remote) else {
                    throw .modelNotDownloaded(name: remote.name)
                }
                path = downloaded
            }
            let classifierOptions = ImageClassifierOptions()
            classifierOptions.baseOptions.modelAssetPath = path
            classifierOptions.baseOptions.numThreads = configuration.numThreads
            classifierOptions.maxResults = CustomObjectDetectorOptions.labelCount(requested: configuration.maxPerObjectLabelCount)
            // Every score is kept here; the threshold (which may come from the metadata) is applied to the labels.
            classifierOptions.scoreThreshold = 0
            classifierOptions.fallbackLabels = labels
            do { classifier = try ImageClassifier(options: classifierOptions) } catch {
                cause = error as? VisionTaskError
                throw .modelUnavailable("classifier \(path): \(error)")
            }
            guard let loaded = classifier, loaded.hasLabels else {
                throw .modelUnavailable("classifier \(path) has no labels in its metadata to name objects with")
            }
            threshold = CustomObjectDetectorOptions.labelThreshold(requestedValue: configuration.requestedLabelThreshold,
                                                                   metadata: loaded.metadataScoreThreshold)
        }
        return Models(detector: detector, detectorLabels: labels, classifier: classifier, labelThreshold: threshold)
    }

    private func detect(_ image: MPImage) throws(ObjectDetectionError) -> [Object] {
        let models = try models.get()
        let found: [Detection]
        do { found = try models.detector.detect(image: image).detections } catch {
            throw .processingFailed("\(error)")
        }
        let kept = Array(found.prefix(configuration.multipleObjects ? Self.maximumObjects : 1))
        var labels: [[ObjectLabel]] = []
        for detection in kept {
            guard configuration.classification else { labels.append([]); continue }
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
        let ids: [Int?] = tracker?.update(kept.map(\.boundingBox)) ?? kept.map { _ in nil }
        return zip(kept, zip(ids, labels)).map { detection, rest in
            Object(frame: detection.boundingBox, trackingID: rest.0.map { NSNumber(value: $0) }, labels: rest.1)
        }
    }

    private static func classify(_ box: CGRect, in image: MPImage, with classifier: ImageClassifier) throws(ObjectDetectionError) -> [ObjectLabel] {
        guard let crop = image.cropped(x: Int(box.minX), y: Int(box.minY), width: Int(box.width), height: Int(box.height)) else {
            return []
        }
        let result: ImageClassifierResult
        do { result = try classifier.classify(image: crop) } catch { throw .processingFailed("\(error)") }
        return (result.classificationResult.classifications.first?.categories ?? []).map {
            ObjectLabel(text: $0.categoryName ?? "", confidence: $0.score, index: $0.index)
        }
    }
}
