// ML Kit's object detection and tracking for the worker, in a file of its own: VisionTasksMLKit's ObjectDetector is
// ML Kit's, VisionTasks' (WorkerCommand.swift) is MediaPipe's.
import Foundation
import VisionTasksMLKit

/// `odt` requests: the detector as `vision-tasks odt` configures it, answering with that command's entries.
final class TrackingSession: FrameSession {
    private let detector: ObjectDetector

    init(_ detector: ObjectDetector) {
        self.detector = detector
    }

    /// The command's options as its `run()` turns them into ML Kit's options.
    static func plan(_ command: ObjectTrackingCommand, threads: Int) -> SessionPlan {
        SessionPlan(
            load: { _ in
                let options: CommonObjectDetectorOptions
                if let classifier = command.classifier {
                    let custom = CustomObjectDetectorOptions(
                        localModel: command.labels.map { LocalModel(path: classifier, labelsPath: $0) } ?? LocalModel(path: classifier))
                    custom.maxPerObjectLabelCount = command.maxLabels
                    custom.classificationConfidenceThreshold = command.threshold.map { NSNumber(value: $0) }
                    options = custom
                } else {
                    options = ObjectDetectorOptions()
                }
                options.detectorModelPath = command.detector
                options.detectorMode = command.mode == .stream ? .stream : .singleImage
                options.shouldEnableMultipleObjects = command.multiple
                options.shouldEnableClassification = command.classifier != nil || command.classify
                options.numThreads = threads
                return TrackingSession(ObjectDetector.objectDetector(options: options))
            },
            orientation: command.orientation, maxFrames: command.maxFrames,
            // Stream mode tracks objects from image to image, and ML Kit's detector has no way to start over: such a
            // request (and every clip) gets a detector of its own, as one CLI run does.
            reusable: { mode in mode == .image && command.mode == .singleImage })
    }

    /// A detector serves one clip only (see ``plan(_:threads:)``).
    func startClip() {}

    func entry(for image: MPImage, label: String, timestamp: Int?) throws -> [String: Any] {
        let objects: [Object]
        do { objects = try detector.results(in: VisionImage(image: image)) } catch {
            // ML Kit loads its models on the first image: a missing or wrong model surfaces here.
            throw WorkerFailure(.processingError, "\(label): \(error)")
        }
        return ["image": label, "width": image.width, "height": image.height,
                "timestampMs": timestamp.map { $0 as Any } ?? NSNull(), "objects": objects.map(ObjectTrackingCommand.json)]
    }
}
