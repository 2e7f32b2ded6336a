import Dispatch
import Synchronization

/// A task's per-frame work: its models and its video-mode state (tracked regions, smoothing filters). Lives inside a
/// ``TaskRunner``, which calls it one frame at a time.
protocol TaskPipeline: AnyObject, PipelineMetatype {
    associatedtype Result: Sendable
    /// Processes one frame. `timestampMilliseconds` is nil in image mode: nothing is tracked, smoothed or kept.
    func process(_ image: MPImage, timestampMilliseconds: Int?) throws(VisionTaskError) -> Result
}

// The live-stream work item names the pipeline's result type; Swift 6.2 asks that such a metatype be sendable
// (a pipeline type has no static state, so it is). Older compilers have no such protocol and need none.
#if compiler(>=6.2)
typealias PipelineMetatype = SendableMetatype
#else
protocol PipelineMetatype {}
#endif

/// How a live-stream frame was answered: every accepted call gets exactly one of these, in timestamp order.
enum LiveStreamOutcome<Result: Sendable>: Sendable {
    case result(Result)
    case failure(VisionTaskError)
    /// The frame arrived while the previous one was still being processed, and was not processed.
    case dropped
}

/// The running-mode machinery every task shares: the running-mode check of each method, strictly increasing
/// timestamps, one frame at a time through the pipeline, and the live stream.
///
/// Live stream, as MediaPipe runs it: a frame that arrives while the previous one is still being processed is
/// dropped; results are delivered in timestamp order on one serial queue. Delivery runs beside the next frame's
/// processing, so a frame's work and the previous frame's delivery overlap across cores. Unlike MediaPipe, a dropped
/// frame is answered too (`.dropped`, in order with the results), so every call is answered exactly once. A frame is
/// also dropped while two results wait for a slow delegate: memory stays bounded however long a callback takes
/// (MediaPipe's slow callback blocks its graph instead).
final class TaskRunner<Pipeline: TaskPipeline>: Sendable {
    let runningMode: RunningMode
    /// The pipeline is held for a whole frame.
    private let pipeline: Mutex<Pipeline>
    /// Admission state, never held while a frame is processed, so `detectAsync` callers never wait for a frame.
    private let admission = Mutex(Admission())
    private let workQueue: DispatchQueue
    private let deliveryQueue: DispatchQueue
    private let onDeliveryQueue = DispatchSpecificKey<Bool>()

    private struct Admission {
        var lastTimestamp: Int?
        var inFlight = false
        /// Results handed to the delivery queue whose callback has not returned.
        var undelivered = 0
        var closed = false
        /// Notices of frames dropped while the frame in flight is processed, delivered right after its outcome.
        var drops: [@Sendable () -> Void] = []
    }

    init(_ pipeline: sending Pipeline, runningMode: RunningMode, label: String) {
        self.pipeline = Mutex(pipeline)
        self.runningMode = runningMode
        workQueue = DispatchQueue(label: "vision-tasks.\(label).work")
        deliveryQueue = DispatchQueue(label: "vision-tasks.\(label).delivery")
        deliveryQueue.setSpecific(key: onDeliveryQueue, value: true)
    }

    /// Image mode: one image, nothing kept between calls.
    func process(image: MPImage, method: String) throws(VisionTaskError) -> Pipeline.Result {
        try admit(method: method, in: .image, timestamp: nil)
        return try pipeline.withLock { (pipeline) throws(VisionTaskError) -> Pipeline.Result in
            try pipeline.process(image, timestampMilliseconds: nil)
        }
    }

    /// Video mode: one frame, tracked from the previous ones; timestamps must increase.
    func process(videoFrame image: MPImage, timestampMilliseconds timestamp: Int, method: String) throws(VisionTaskError) -> Pipeline.Result {
        try admit(method: method, in: .video, timestamp: timestamp)
        return try pipeline.withLock { (pipeline) throws(VisionTaskError) -> Pipeline.Result in
            try pipeline.process(image, timestampMilliseconds: timestamp)
        }
    }

    /// Live-stream mode: queues the frame and returns at once; `deliver` is called once, on the delivery queue, with
    /// its outcome — `.dropped` when the previous frame is still in flight (the return value is then false).
    @discardableResult
    func processAsync(_ image: MPImage, timestampMilliseconds timestamp: Int, method: String,
                      deliver: @escaping @Sendable (LiveStreamOutcome<Pipeline.Result>) -> Void) throws(VisionTaskError) -> Bool {
        try admit(method: method, in: .liveStream, timestamp: timestamp)
        return admission.withLock { state in
            if state.inFlight {
                // Delivered after the frame in flight, with its outcome. A camera faster than the pipeline drops
                // most frames; two queue hops per drop, as this was, woke threads hundreds of times a second beside
                // the frame being processed (alternated runs: gesture live 84–100 results/s now, 76–91 before).
                state.drops.append { deliver(.dropped) }
                return false
            }
            if state.undelivered > 1 {
                // Nothing in flight: behind the results waiting on the delivery queue.
                deliveryQueue.async { deliver(.dropped) }
                return false
            }
            state.inFlight = true
            workQueue.async { [self] in runQueued(image, timestampMilliseconds: timestamp, deliver: deliver) }
            return true
        }
    }

    private func runQueued(_ image: MPImage, timestampMilliseconds timestamp: Int,
                           deliver: @escaping @Sendable (LiveStreamOutcome<Pipeline.Result>) -> Void) {
        let outcome: LiveStreamOutcome<Pipeline.Result>
        do throws(VisionTaskError) {
            outcome = .result(try pipeline.withLock { (pipeline) throws(VisionTaskError) -> Pipeline.Result in
                try pipeline.process(image, timestampMilliseconds: timestamp)
            })
        } catch {
            outcome = .failure(error)
        }
        // Queued under the lock: a frame dropped from here on is queued behind this frame's outcome and notices.
        admission.withLock { state in
            state.inFlight = false
            state.undelivered += 1
            var taken: [@Sendable () -> Void] = []
            swap(&taken, &state.drops)
            let drops = taken
            deliveryQueue.async { [self] in
                deliver(outcome)
                for drop in drops { drop() }
                admission.withLock { $0.undelivered -= 1 }
            }
        }
    }

    /// Waits until every accepted live-stream frame has been processed and its result delivered. Called from a
    /// delegate callback (on the delivery queue) it waits for processing only: the deliveries queued behind the
    /// running callback cannot happen before it returns.
    func waitUntilIdle() {
        workQueue.sync {}
        if DispatchQueue.getSpecific(key: onDeliveryQueue) != true { deliveryQueue.sync {} }
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

    private func admit(method: String, in mode: RunningMode, timestamp: Int?) throws(VisionTaskError) {
        guard runningMode == mode else { throw .wrongRunningMode(method: method, runningMode: runningMode) }
        try admission.withLock { (state) throws(VisionTaskError) in
            guard !state.closed else { throw .taskClosed }
            guard let timestamp else { return }
            if let last = state.lastTimestamp, timestamp <= last {
                throw .nonIncreasingTimestamp(previous: last, current: timestamp)
            }
            state.lastTimestamp = timestamp
        }
    }
}
