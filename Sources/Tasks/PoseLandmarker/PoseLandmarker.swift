import Dispatch
import Foundation
import Format
import Vision

/// Finds people and their 33 body landmarks, as MediaPipe's Pose Landmarker does: a pose detector on the whole
/// image, a rotated square region per pose, the landmark model on each region, and — in video and live-stream
/// modes — regions carried from one frame's landmarks to the next, with the detector filling in when fewer than
/// `numPoses` are tracked.
///
/// Thread safety: calls are serialized internally; live-stream results arrive on one serial queue, in order.
public final class PoseLandmarker: @unchecked Sendable {
    // @unchecked: the pipeline and tracking state are only touched under `lock`; timestamps and the in-flight flag
    // under `stateLock`, which is never held while a frame is processed (so live-stream callers never block).
    let options: PoseLandmarkerOptions
    let pipeline: PosePipeline
    private let lock = NSLock()
    private let stateLock = NSLock()
    private var lastTimestamp: Int?
    private var trackedRects: [NormalizedRect] = []
    private var smoothing: PoseSmoothing?

    // Live stream: one worker, one delivery queue; a frame that arrives while one is in flight is dropped.
    private let workQueue = DispatchQueue(label: "vision-tasks.pose.work")
    private let deliveryQueue = DispatchQueue(label: "vision-tasks.pose.delivery")
    private var inFlight = false
    private weak var delegate: (any PoseLandmarkerLiveStreamDelegate)?

    /// Creates a landmarker; `options` are copied.
    public init(options: PoseLandmarkerOptions) throws {
        try options.validate()
        let copy = PoseLandmarkerOptions()
        copy.baseOptions = options.baseOptions
        copy.runningMode = options.runningMode
        copy.numPoses = options.numPoses
        copy.minPoseDetectionConfidence = options.minPoseDetectionConfidence
        copy.minPosePresenceConfidence = options.minPosePresenceConfidence
        copy.minTrackingConfidence = options.minTrackingConfidence
        copy.outputSegmentationMasks = options.outputSegmentationMasks
        self.options = copy
        delegate = options.poseLandmarkerLiveStreamDelegate
        let bundle: TaskBundle
        do { bundle = try TaskBundle(path: options.baseOptions.modelAssetPath) } catch { throw VisionTaskError.model(error) }
        pipeline = try PosePipeline(bundle: bundle, options: copy)
        if copy.runningMode != .image, copy.numPoses == 1 { smoothing = PoseSmoothing() }
    }

    /// Stage timings accumulated so far (for benchmarks).
    package var timings: (detector: StageTimings, landmarks: StageTimings) {
        lock.lock(); defer { lock.unlock() }
        return pipeline.timings
    }

    /// Image mode with default options.
    public convenience init(modelPath: String) throws {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// Image mode: detects poses in one image.
    public func detect(image: MPImage) throws -> PoseLandmarkerResult {
        guard options.runningMode == .image else { throw VisionTaskError.wrongRunningMode(method: "detect(image:)", runningMode: options.runningMode) }
        lock.lock(); defer { lock.unlock() }
        let output = try pipeline.process(image, tracked: [], useTracking: false)
        return output.result(timestamp: 0)
    }

    /// Video mode: one frame; timestamps must increase.
    public func detect(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int) throws -> PoseLandmarkerResult {
        guard options.runningMode == .video else {
            throw VisionTaskError.wrongRunningMode(method: "detect(videoFrame:timestampInMilliseconds:)", runningMode: options.runningMode)
        }
        try accept(timestamp)
        lock.lock(); defer { lock.unlock() }
        return try track(image, timestamp: timestamp)
    }

    /// Live-stream mode: queues a frame; its result reaches the delegate. A frame sent while the previous one is
    /// still being processed is dropped (no callback), as MediaPipe does.
    public func detectAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        guard options.runningMode == .liveStream else {
            throw VisionTaskError.wrongRunningMode(method: "detectAsync(image:timestampInMilliseconds:)", runningMode: options.runningMode)
        }
        try accept(timestamp)
        stateLock.lock()
        if inFlight { stateLock.unlock(); return }
        inFlight = true
        stateLock.unlock()
        workQueue.async { [self] in
            var result: PoseLandmarkerResult?
            var failure: (any Error)?
            lock.lock()
            do { result = try track(image, timestamp: timestamp) } catch { failure = error }
            lock.unlock()
            stateLock.lock()
            inFlight = false
            stateLock.unlock()
            deliveryQueue.async { [self, result, failure] in
                delegate?.poseLandmarker(self, didFinishDetection: result, timestampInMilliseconds: timestamp, error: failure)
            }
        }
    }

    /// Waits until every queued live-stream frame has been processed and delivered.
    public func waitUntilIdle() {
        workQueue.sync {}
        deliveryQueue.sync {}
    }

    private func accept(_ timestamp: Int) throws(VisionTaskError) {
        stateLock.lock(); defer { stateLock.unlock() }
        if let lastTimestamp, timestamp <= lastTimestamp {
            throw .nonIncreasingTimestamp(previous: lastTimestamp, current: timestamp)
        }
        lastTimestamp = timestamp
    }

    /// Called with `lock` held.
    private func track(_ image: MPImage, timestamp: Int) throws -> PoseLandmarkerResult {
        let output = try pipeline.process(image, tracked: trackedRects, useTracking: true)
        trackedRects = output.nextRects
        var result = output.result(timestamp: timestamp)
        if let smoothing {
            if let pose = output.poses.first {
                let smoothed = smoothing.apply(pose, imageWidth: image.width, imageHeight: image.height, timestamp: timestamp)
                result.landmarks = [smoothed.landmarks]
                result.worldLandmarks = [smoothed.world]
            } else {
                smoothing.reset()
            }
        }
        return result
    }
}

/// One pose found in one frame, before results are assembled.
struct PoseEstimate {
    var landmarks: [NormalizedLandmark]
    var world: [Landmark]
    var mask: Mask?
    var nextRect: NormalizedRect
}

struct PoseFrameOutput {
    var poses: [PoseEstimate]
    var nextRects: [NormalizedRect]
    var includeMasks: Bool

    func result(timestamp: Int) -> PoseLandmarkerResult {
        PoseLandmarkerResult(landmarks: poses.map(\.landmarks), worldLandmarks: poses.map(\.world),
                             segmentationMasks: includeMasks ? poses.compactMap(\.mask) : nil, timestampInMilliseconds: timestamp)
    }
}
