import Dispatch
import Foundation
import Metrics

/// The inference slots and the wait queue in front of them, and the idle task instances by setup.
///
/// At most `slots` requests hold a slot at once; up to `queueLimit` more wait for one in arrival order, and a request
/// that finds the queue full is refused at once (``RequestError/overloaded``): under overload the excess is shed
/// instead of every request slowing down. A waiter that is cancelled (its client went away, its deadline passed)
/// leaves the queue. Idle instances are kept per ``TaskSetup`` up to `idleLimit` in all, the least recently used
/// dropped first, so that option combinations cannot grow memory without bound.
actor InferencePool {
    let slots: Int
    let queueLimit: Int
    let idleLimit: Int
    private var busy = 0
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextWaiter: UInt64 = 0
    /// Idle instances, most recently returned last.
    private var idle: [(setup: TaskSetup, instance: TaskInstance)] = []
    private let queueDepth = Gauge(label: "vision_tasks_queue_depth")
    private let slotsBusy = Gauge(label: "vision_tasks_slots_busy")

    init(slots: Int, queueLimit: Int) {
        self.slots = slots
        self.queueLimit = queueLimit
        idleLimit = max(4, 2 * slots)
    }

    /// Waits for a slot (in arrival order). Throws ``RequestError/overloaded`` when the queue is full, and
    /// `CancellationError` when the waiting task is cancelled.
    func acquire() async throws {
        if busy < slots, waiters.isEmpty {
            busy += 1
            slotsBusy.record(busy)
            return
        }
        guard waiters.count < queueLimit else { throw RequestError.overloaded }
        let id = nextWaiter
        nextWaiter += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                waiters.append((id, continuation))
                queueDepth.record(waiters.count)
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func cancelWaiter(_ id: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
        queueDepth.record(waiters.count)
    }

    /// Gives the slot to the first waiter, or frees it.
    func release() {
        if waiters.isEmpty {
            busy -= 1
            slotsBusy.record(busy)
        } else {
            waiters.removeFirst().continuation.resume()
            queueDepth.record(waiters.count)
        }
    }

    /// An idle image-mode instance with exactly these settings, if one is kept.
    func checkOut(_ setup: TaskSetup) -> TaskInstance? {
        guard let index = idle.lastIndex(where: { $0.setup == setup }) else { return nil }
        return idle.remove(at: index).instance
    }

    /// Keeps an image-mode instance for the next request with these settings.
    func checkIn(_ setup: TaskSetup, _ instance: TaskInstance) {
        idle.append((setup, instance))
        if idle.count > idleLimit { idle.removeFirst(idle.count - idleLimit) }
    }

    /// Requests waiting for a slot and slots in use, for tests and `/readyz`.
    var state: (waiting: Int, busy: Int, idleInstances: Int) { (waiters.count, busy, idle.count) }
}

/// Runs blocking work (decoding, inference) on a thread of its own, off Swift's cooperative pool and SwiftNIO's event
/// loops. The awaiting task may be cancelled: it then returns at once with `CancellationError` while work already
/// started runs to its end (a model invocation cannot be interrupted); `finished` gets the work's outcome after it
/// ends (or, when cancelled before it started, a `CancellationError`), so a slot is freed only when its instance is
/// really free.
func runBlocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T,
                              finished: @escaping @Sendable (Result<T, any Error>) -> Void) async throws -> T {
    let once = ResumeOnce<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            once.set(continuation)
            inferenceQueue.async {
                guard !once.isDone else {
                    finished(.failure(CancellationError()))
                    return
                }
                let outcome = Result { try work() }
                finished(outcome)
                once.resume(with: outcome)
            }
        }
    } onCancel: {
        once.resume(with: .failure(CancellationError()))
    }
}

private let inferenceQueue = DispatchQueue(label: "vision-tasks-server.inference", qos: .userInitiated, attributes: .concurrent)

/// A continuation resumed by whichever comes first: the work's end or the task's cancellation.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    // @unchecked: both fields under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var pending: Result<T, any Error>?
    private var done = false

    var isDone: Bool {
        lock.lock(); defer { lock.unlock() }
        return done
    }

    func set(_ continuation: CheckedContinuation<T, any Error>) {
        lock.lock()
        if let pending {
            lock.unlock()
            continuation.resume(with: pending)
            return
        }
        self.continuation = continuation
        lock.unlock()
    }

    func resume(with outcome: Result<T, any Error>) {
        lock.lock()
        guard !done else { lock.unlock(); return }
        done = true
        guard let continuation else {
            pending = outcome
            lock.unlock()
            return
        }
        self.continuation = nil
        lock.unlock()
        continuation.resume(with: outcome)
    }
}

/// Runs `operation`, or throws ``RequestError/deadlineExceeded`` once `deadline` has passed (cancelling it).
func withDeadline<T: Sendable>(_ deadline: ContinuousClock.Instant, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(until: deadline, clock: .continuous)
            throw RequestError.deadlineExceeded
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
