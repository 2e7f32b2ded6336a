import Foundation
internal import VisionTasks

/// ML Kit's object detector: finds objects (class-agnostic SSD), tracks them across stream frames, and labels them
/// with a custom image classifier (each object's box cropped from the image, turned as the image, classified) or with
/// the detector's own classes.
///
/// `results(in:)` runs on the caller's thread; `process(_:completion:)` runs on a queue of the detector's and calls
/// `completion` on another serial queue, in order (Linux has no main run loop to call back on). Both go through the
/// running-mode machinery MediaPipe's tasks share (`TaskRunner`): stream mode is its live stream, with ML Kit's
/// admission (a frame that arrives while the detector is busy is dropped).
public final class ObjectDetector: Sendable {
    private let mode: ObjectDetectorMode
    private let runner: TaskRunner<ObjectDetectionPipeline>
    /// Why the models did not load, if they did not: every call's error (ML Kit's factory does not fail), which the
    /// surfaces' session reports when it opens the detector instead.
    let loadFailure: ObjectDetectionError?
    /// The task error behind ``loadFailure`` where there is one (``ObjectDetectionPipeline/loadCause``).
    let loadCause: VisionTaskError?

    /// A detector for `options`, as they are now (ML Kit's factory does not fail: a model that cannot be loaded makes
    /// every call fail with ``ObjectDetectionError/modelUnavailable(_:)`` instead).
    public static func objectDetector(options: CommonObjectDetectorOptions) -> ObjectDetector {
        ObjectDetector(ObjectDetectorConfiguration(options))
    }

    init(_ configuration: ObjectDetectorConfiguration) {
        mode = configuration.mode
        let pipeline = ObjectDetectionPipeline(configuration)
        loadFailure = pipeline.loadFailure
        loadCause = pipeline.loadCause
        runner = TaskRunner(pipeline, runningMode: mode == .stream ? .liveStream : .image,
                            label: "mlkit.object-detector", liveStreamAdmission: .dropIncoming)
    }

    /// The objects in `image`, on the caller's thread (ML Kit's synchronous API).
    public func results(in image: VisionImage) throws -> [Object] {
        let method = "results(in:)"
        let result: ObjectDetectionPipeline.Result
        let oriented = try image.oriented()
        do throws(VisionTaskError) {
            result = mode == .stream ? try runner.process(streamImage: oriented, method: method)
                : try runner.process(image: oriented, method: method)
        } catch {
            throw Self.refused(error)
        }
        return try result.get()
    }

    /// Processes `image` on the detector's queue and calls `completion` with the objects or an error, once per call, in
    /// the order of the calls. In stream mode a frame that arrives while the previous one is processed is dropped
    /// (completion gets ``ObjectDetectionError/frameDropped``, after the answer for the frame in flight), as ML Kit's
    /// live detection keeps up with a camera; so is one that arrives while two answers wait for a slow completion, so
    /// that answers never pile up. In single-image mode every image is processed.
    public func process(_ image: VisionImage, completion: @escaping @Sendable ([Object]?, (any Error)?) -> Void) {
        let method = "process(_:completion:)"
        let oriented: MPImage
        do { oriented = try image.oriented() } catch {
            // Refused before it reaches the queue, so answered on the caller's thread, as a closed runner's refusal is.
            return completion(nil, error)
        }
        do throws(VisionTaskError) {
            switch mode {
            case .stream:
                try runner.processAsync(oriented, method: method) { outcome in
                    switch outcome {
                    case let .result(result): Self.complete(result, completion)
                    case let .failure(error): completion(nil, Self.refused(error))
                    case .dropped: completion(nil, ObjectDetectionError.frameDropped)
                    }
                }
            case .singleImage:
                try runner.processAsync(image: oriented, method: method) { outcome in
                    switch outcome {
                    case let .success(result): Self.complete(result, completion)
                    case let .failure(error): completion(nil, Self.refused(error))
                    }
                }
            }
        } catch {
            // The runner refuses a frame only when closed (never, here) or after 10^12 stream frames; no queue to
            // answer on then but the caller's.
            completion(nil, Self.refused(error))
        }
    }

    private static func complete(_ result: ObjectDetectionPipeline.Result, _ completion: ([Object]?, (any Error)?) -> Void) {
        switch result {
        case let .success(objects): completion(objects, nil)
        case let .failure(error): completion(nil, error)
        }
    }

    /// The running-mode machinery's own errors, in ML Kit's terms; the pipeline's are ML Kit's already.
    private static func refused(_ error: VisionTaskError) -> ObjectDetectionError {
        .processingFailed("\(error)")
    }
}
