import Dispatch

/// A task's per-frame work: its models and its video-mode state (tracked regions, smoothing filters). Lives inside a
/// ``TaskRunner``, which calls it one frame at a time.
package protocol FramePipeline: AnyObject, PipelineMetatype {
    associatedtype Result: Sendable
    /// Processes one frame. `timestampMilliseconds` is nil in image mode: nothing is tracked, smoothed or kept. (ML Kit's
    /// pipeline tracks by its own mode and ignores it: its frames have no timestamps.)
    func process(_ image: MPImage, timestampMilliseconds: Int?) throws(VisionTaskError) -> Result
    /// As `process`, but may hand back the frame's last stages unfinished: work that needs none of the state carried
    /// to the next frame. The live stream finishes it beside the next frame, as MediaPipe's flow limiter lets the
    /// next frame in once the stream it waits for is out (the face landmarker's: the landmarks, before blendshapes
    /// and geometry; `tasks/cc/vision/face_landmarker/face_landmarker.cc`).
    func start(_ image: MPImage, timestampMilliseconds: Int) throws(VisionTaskError) -> PipelineOutput<Result>
}

extension FramePipeline {
    package func start(_ image: MPImage, timestampMilliseconds timestamp: Int) throws(VisionTaskError) -> PipelineOutput<Result> {
        .finished(try process(image, timestampMilliseconds: timestamp))
    }
}

/// A frame's result, or what is left to compute it once the pipeline's state has moved on to the next frame.
package enum PipelineOutput<Result: Sendable>: Sendable {
    case finished(Result)
    case unfinished(@Sendable () throws(VisionTaskError) -> Result)

    func finish() throws(VisionTaskError) -> Result {
        switch self {
        case let .finished(result): result
        case let .unfinished(rest): try rest()
        }
    }
}

// The live-stream work item names the pipeline's result type; Swift 6.2 asks that such a metatype be sendable
// (a pipeline type has no static state, so it is). Older compilers have no such protocol and need none.
#if compiler(>=6.2)
package typealias PipelineMetatype = SendableMetatype
#else
package protocol PipelineMetatype {}
#endif

/// How a live-stream frame was answered: every accepted call gets exactly one of these, in timestamp order.
package enum LiveStreamOutcome<Result: Sendable>: Sendable {
    case result(Result)
    case failure(VisionTaskError)
    /// The frame was not processed: a newer frame took its place while it waited (``LiveStreamAdmission/replaceWaiting``),
    /// or it arrived while the runner was busy (``LiveStreamAdmission/dropIncoming``).
    case dropped
}

/// Which frame a busy live stream gives up.
package enum LiveStreamAdmission: Sendable {
    /// MediaPipe's flow limiter: the newest frame waits for the one in flight, and a frame already waiting is dropped.
    case replaceWaiting
    /// ML Kit's stream mode: a frame that arrives while the runner is busy is dropped, and nothing waits (ML Kit's
    /// guide has apps drop the frames that come while the detector runs; our ML Kit detector answers them with
    /// `frameDropped`).
    case dropIncoming
}

/// The running-mode machinery every task shares: the running-mode check of each method, strictly increasing
/// timestamps, one frame at a time through the pipeline, and the live stream.
///
/// Live stream, as MediaPipe's tasks run it (a `FlowLimiterCalculator` with `max_in_flight` 1 and `max_in_queue` 1,
/// `tasks/cc/core/utils.h`): one frame is processed at a time; a frame that arrives meanwhile waits, and when a newer
/// one arrives the waiting frame is dropped. The waiting frame — the newest — starts as soon as the one in flight is
/// done, without waiting for the camera's next frame. Results are delivered in timestamp order on one serial queue,
/// beside the next frame's processing; a pipeline's unfinished last stages
/// (``FramePipeline/start(_:timestampMilliseconds:)``) run there too, just before their delivery. Unlike MediaPipe, a
/// dropped frame is answered too (`.dropped`, in order with the results), so every call is answered exactly once. While
/// two results wait for a slow delegate, the waiting frame is not started until one of them has been delivered: memory
/// stays bounded however long a callback takes (MediaPipe's slow callback blocks its graph instead).
package final class TaskRunner<Pipeline: FramePipeline>: Sendable {
    let runningMode: RunningMode
    private let liveStreamAdmission: LiveStreamAdmission
    /// The pipeline is held for a whole frame.
    private let pipeline: Locked<Pipeline>
    /// Admission state, never held while a frame is processed, so `detectAsync` callers never wait for a frame.
    private let admission = Locked(Admission())
    private let workQueue: DispatchQueue
    private let deliveryQueue: DispatchQueue
    private let onDeliveryQueue = DeliveryQueueKey()
    /// The key is an immutable token, safe to share; Swift 6.0's Dispatch on Linux does not mark it `Sendable` (6.1's
    /// does), so a Sendable class may hold it only through this wrapper.
    private struct DeliveryQueueKey: @unchecked Sendable {
        let key = DispatchSpecificKey<Bool>()
    }

    package typealias Delivery = @Sendable (LiveStreamOutcome<Pipeline.Result>) -> Void

    private struct Frame: Sendable {
        let image: MPImage
        let timestamp: Int
        let deliver: Delivery
        /// Without the image: a dropped frame's pixels are not held until its notice goes out.
        var dropNotice: DropNotice { DropNotice(timestamp: timestamp, deliver: deliver) }
    }

    private struct DropNotice: Sendable {
        let timestamp: Int
        let deliver: Delivery
    }

    private struct Admission {
        var lastTimestamp: Int?
        var inFlight = false
        /// The newest frame that arrived while another was in flight (or while the delegate was behind).
        var waiting: Frame?
        /// Results handed to the delivery queue whose callback has not returned.
        var undelivered = 0
        var closed = false
        /// Frames dropped while the frame in flight is processed, answered right after its outcome.
        var drops: [DropNotice] = []
        /// The latest timestamp answered (delivery queue), for `waitUntilIdle`.
        var answered: Int?

        /// At most two results wait for the delegate; beyond that a frame waits instead of being processed.
        var delegateIsBehind: Bool { undelivered > 1 }
    }

    package init(_ pipeline: sending Pipeline, runningMode: RunningMode, label: String,
                 liveStreamAdmission: LiveStreamAdmission = .replaceWaiting) {
        self.pipeline = Locked(pipeline)
        self.runningMode = runningMode
        self.liveStreamAdmission = liveStreamAdmission
        workQueue = DispatchQueue(label: "vision-tasks.\(label).work")
        deliveryQueue = DispatchQueue(label: "vision-tasks.\(label).delivery")
        deliveryQueue.setSpecific(key: onDeliveryQueue.key, value: true)
    }

    /// Image mode: one image, nothing kept between calls.
    package func process(image: MPImage, method: String) throws(VisionTaskError) -> Pipeline.Result {
        try checkMode(method: method, .image)
        try checkOpen()
        return try pipeline.withLock { (pipeline) throws(VisionTaskError) -> Pipeline.Result in
            try pipeline.process(image, timestampMilliseconds: nil)
        }
    }

    /// Video mode: one frame, tracked from the previous ones; timestamps must increase.
    func process(videoFrame image: MPImage, timestampMilliseconds timestamp: Int, method: String) throws(VisionTaskError) -> Pipeline.Result {
        try checkMode(method: method, .video)
        // Admitted while holding the pipeline: two threads' frames are processed in the order their timestamps
        // were admitted, so tracking and smoothing never see time go backwards. (The admission lock is never held
        // while waiting for the pipeline, so this order cannot deadlock.)
        return try pipeline.withLock { (pipeline) throws(VisionTaskError) -> Pipeline.Result in
            try admission.withLock { (state) throws(VisionTaskError) in try Self.admit(timestamp, into: &state) }
            return try pipeline.process(image, timestampMilliseconds: timestamp)
        }
    }

    /// Video mode: forgets the last timestamp and, through `reset`, the pipeline's state, between two frames (under
    /// the pipeline's lock, so no frame is in the middle of it).
    func startNewVideo(method: String, reset: (Pipeline) -> Void) throws(VisionTaskError) {
        try checkMode(method: method, .video)
        try checkOpen()
        pipeline.withLock { pipeline in
            admission.withLock { $0.lastTimestamp = nil }
            reset(pipeline)
        }
    }

    /// Image mode, off the caller's thread: `image` is processed on the work queue after the images sent before it,
    /// and `deliver` gets its outcome on the delivery queue, in order. Nothing is dropped (ML Kit's `process` for single
    /// images; MediaPipe's image mode has only the synchronous call).
    package func processAsync(image: MPImage, method: String,
                              deliver: @escaping @Sendable (Result<Pipeline.Result, VisionTaskError>) -> Void) throws(VisionTaskError) {
        try checkMode(method: method, .image)
        try checkOpen()
        workQueue.async { [self] in
            let outcome = Result { () throws(VisionTaskError) -> Pipeline.Result in
                try pipeline.withLock { (pipeline) throws(VisionTaskError) -> Pipeline.Result in
                    try pipeline.process(image, timestampMilliseconds: nil)
                }
            }
            deliveryQueue.async { deliver(outcome) }
        }
    }

    /// Live-stream mode: takes the frame and returns at once; `deliver` is called once, on the delivery queue, with
    /// its outcome — `.dropped` when the frame gave way under the runner's ``LiveStreamAdmission``.
    func processAsync(_ image: MPImage, timestampMilliseconds timestamp: Int, method: String,
                      deliver: @escaping Delivery) throws(VisionTaskError) {
        try checkMode(method: method, .liveStream)
        try enqueue(image, timestamp: timestamp, deliver: deliver)
    }

    /// Live-stream mode for frames without timestamps (ML Kit's): each is numbered after the last one admitted. The
    /// number is taken under the admission lock, so concurrent callers cannot be refused for going backwards.
    package func processAsync(_ image: MPImage, method: String, deliver: @escaping Delivery) throws(VisionTaskError) {
        try checkMode(method: method, .liveStream)
        try enqueue(image, timestamp: nil, deliver: deliver)
    }

    /// ML Kit's stream mode also answers synchronous calls, on the caller's thread between the stream's frames; the
    /// pipeline gets no timestamp (ML Kit's tracker needs none) and no live-stream admission takes place.
    package func process(streamImage image: MPImage, method: String) throws(VisionTaskError) -> Pipeline.Result {
        try checkMode(method: method, .liveStream)
        try checkOpen()
        return try pipeline.withLock { (pipeline) throws(VisionTaskError) -> Pipeline.Result in
            try pipeline.process(image, timestampMilliseconds: nil)
        }
    }

    /// `timestamp` nil: the next number after the last admitted.
    private func enqueue(_ image: MPImage, timestamp given: Int?, deliver: @escaping Delivery) throws(VisionTaskError) {
        // Admission and enqueueing in one critical section: with two, a caller whose timestamp was admitted first could
        // enqueue after a later one, and the answers (and `waitUntilIdle`, which waits for the last admitted
        // timestamp to be answered) would wait for a frame that had been dropped out of order.
        try admission.withLock { (state) throws(VisionTaskError) in
            let timestamp = given ?? state.lastTimestamp.map { $0 + 1 } ?? 0
            try Self.admit(timestamp, into: &state)
            let frame = Frame(image: image, timestamp: timestamp, deliver: deliver)
            guard state.inFlight || state.delegateIsBehind else {
                state.inFlight = true
                workQueue.async { [self] in run(frame) }
                return
            }
            if liveStreamAdmission == .dropIncoming {
                // Answered behind the frame in flight, as a replaced frame is: every answer in arrival order.
                if state.inFlight {
                    state.drops.append(frame.dropNotice)
                } else {
                    let notice = frame.dropNotice
                    deliveryQueue.async { [self] in answer([notice]) }
                }
                return
            }
            if let replaced = state.waiting {
                if state.inFlight {
                    // Answered right after the frame in flight, with its outcome. A camera faster than the pipeline
                    // replaces hundreds of frames a second; a queue hop each woke threads beside the frame being
                    // processed (alternated runs, eleventh session: gesture live 84–100 results/s, 76–91 before).
                    state.drops.append(replaced.dropNotice)
                } else {
                    let notice = replaced.dropNotice
                    deliveryQueue.async { [self] in answer([notice]) }
                }
            }
            state.waiting = frame
        }
    }

    /// Processes `first`, then the frame that waited meanwhile, and so on, in one work item (so that
    /// `waitUntilIdle`'s barrier on the work queue waits for the chain).
    private func run(_ first: Frame) {
        var next: Frame? = first
        while let frame = next {
            let started: Result<PipelineOutput<Pipeline.Result>, VisionTaskError>
            do throws(VisionTaskError) {
                started = .success(try pipeline.withLock { (pipeline) throws(VisionTaskError) -> PipelineOutput<Pipeline.Result> in
                    try pipeline.start(frame.image, timestampMilliseconds: frame.timestamp)
                })
            } catch {
                started = .failure(error)
            }
            // Queued under the lock: a frame dropped from here on is answered behind this frame's outcome.
            next = admission.withLock { state in
                state.undelivered += 1
                let drops = state.drops
                state.drops = []
                deliveryQueue.async { [self] in
                    let outcome: LiveStreamOutcome<Pipeline.Result>
                    do throws(VisionTaskError) {
                        outcome = .result(try started.get().finish())
                    } catch {
                        outcome = .failure(error)
                    }
                    frame.deliver(outcome)
                    answer(drops, after: frame.timestamp)
                }
                guard !state.delegateIsBehind, let waiting = state.waiting else {
                    state.inFlight = false
                    return nil
                }
                state.waiting = nil
                return waiting
            }
        }
    }

    /// On the delivery queue: answers `drops`, then records what was answered; after a result (`after` is its
    /// timestamp) starts the waiting frame if it was held back for the delegate.
    private func answer(_ drops: [DropNotice], after result: Int? = nil) {
        for drop in drops { drop.deliver(.dropped) }
        admission.withLock { state in
            state.answered = drops.last?.timestamp ?? result
            guard result != nil else { return }
            state.undelivered -= 1
            guard !state.inFlight, !state.delegateIsBehind, let waiting = state.waiting else { return }
            state.waiting = nil
            state.inFlight = true
            workQueue.async { [self] in run(waiting) }
        }
    }

    /// Waits until every accepted live-stream frame has been processed and its result delivered. Called from a
    /// delegate callback (on the delivery queue) it waits for the frame in flight only: the deliveries queued behind
    /// the running callback, and a frame held back for them, cannot go on before it returns.
    package func waitUntilIdle() {
        guard DispatchQueue.getSpecific(key: onDeliveryQueue.key) != true else {
            workQueue.sync {}
            return
        }
        guard runningMode == .liveStream, let last = admission.withLock({ $0.lastTimestamp }) else { return }
        // A frame held back for the delegate is started from the delivery queue: go round until the last frame
        // accepted before this call is answered (not until idle: another thread may go on sending frames).
        repeat {
            workQueue.sync {}
            deliveryQueue.sync {}
        } while admission.withLock({ ($0.answered ?? .min) < last })
    }

    /// Refuses further input, then waits until idle. Later calls of any method throw ``VisionTaskError/taskClosed``.
    func close() {
        admission.withLock { $0.closed = true }
        waitUntilIdle()
    }

    /// Runs `body` on the pipeline between frames (for benchmarks' timings).
    func withPipeline<R: Sendable>(_ body: (Pipeline) -> R) -> R {
        pipeline.withLock { body($0) }
    }

    private func checkMode(method: String, _ mode: RunningMode) throws(VisionTaskError) {
        guard runningMode == mode else { throw .wrongRunningMode(method: method, runningMode: runningMode) }
    }

    private func checkOpen() throws(VisionTaskError) {
        try admission.withLock { (state) throws(VisionTaskError) in
            guard !state.closed else { throw .taskClosed }
        }
    }

    /// Takes `timestamp` as the newest, or refuses it; called under the admission lock.
    private static func admit(_ timestamp: Int, into state: inout Admission) throws(VisionTaskError) {
        guard !state.closed else { throw .taskClosed }
        guard VisionTaskError.acceptedTimestamps.contains(timestamp) else {
            throw .timestampOutOfRange(timestamp, accepted: VisionTaskError.acceptedTimestamps)
        }
        if let last = state.lastTimestamp, timestamp <= last {
            throw .nonIncreasingTimestamp(previous: last, current: timestamp)
        }
        state.lastTimestamp = timestamp
    }
}
