import CVisionTasksFloatingPoint
import Foundation
import Synchronization

/// The process's kernel threads: one worker per extra core, shared by every interpreter.
///
/// Why not libdispatch: `concurrentPerform` wakes its workers and allocates for every call, and a pose model
/// makes ~200 such calls per invoke (issue #3 counted ~450 allocations per invoke at 2 threads). Here a job is
/// announced by bumping a generation counter that the workers spin on for a short while after their last job —
/// consecutive operators follow each other within microseconds — before they park on a condition variable.
///
/// One job at a time: an interpreter on another thread that finds the pool busy runs its work on its own thread
/// instead of waiting, so concurrent interpreters never oversubscribe the cores.
final class WorkerPool: @unchecked Sendable {
    /// Shared by all interpreters; sized to the machine (at least one worker, so that 2-thread runs split even
    /// where the process sees one core).
    static let shared = WorkerPool(workers: max(1, ProcessInfo.processInfo.activeProcessorCount - 1))

    let workerCount: Int
    /// Bumped once per job; a worker runs a job when it sees a generation it has not seen yet.
    private let generation = Atomic<Int>(0)
    /// Workers that have not yet finished the current job (every worker acknowledges every job).
    private let pending = Atomic<Int>(0)
    private let sleepers = Atomic<Int>(0)
    /// Held by the thread whose job is running; others find it taken and run alone.
    private let busy = Atomic<Bool>(false)
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    // Written by the submitting thread only while no worker reads them: before the generation is bumped
    // (release) and after every worker has acknowledged (acquire). The job is the work's type and a pointer to
    // the caller's work value on its stack, not a closure: handing a closure to another thread needs an escaping
    // copy, which Swift boxes on the heap at every call (so does a generic closure left unspecialized).
    private var jobType: any PartitionedWork.Type = IdleWork.self
    private var jobContext: UnsafeRawPointer?
    private var partCount = 0

    /// Spin iterations (an atomic load each, about a nanosecond) before a worker parks: some 10–20 µs, longer than
    /// the gap between two operators, shorter than the pre-processing between two models. Limits 10× and 50×
    /// longer measured the same (`bench models`, face and pose models at 2 threads).
    private static let spinLimit = 20_000

    private init(workers: Int) {
        workerCount = workers
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        for index in 1...workers {
            let thread = Thread { [unowned(unsafe) self] in self.work(part: index) }
            thread.name = "engine-worker-\(index)"
            thread.start()
        }
    }

    /// Runs `work.run(part)` for part in 0..<parts, part 0 on the calling thread and part i on worker i, and
    /// returns when all are done. Runs every part on the calling thread when the pool is busy with another
    /// interpreter's job or `parts` exceeds the workers.
    func run<Work: PartitionedWork>(parts: Int, _ work: Work) {
        guard parts > 1, parts <= workerCount + 1,
              busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            for part in 0..<parts { work.run(part: part) }
            return
        }
        withUnsafePointer(to: work) { pointer in
            jobType = Work.self
            jobContext = UnsafeRawPointer(pointer)
            partCount = parts
            pending.store(workerCount, ordering: .relaxed)
            generation.add(1, ordering: .sequentiallyConsistent)
            if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
                pthread_mutex_lock(mutex)
                pthread_cond_broadcast(condition)
                pthread_mutex_unlock(mutex)
            }
            work.run(part: 0)
            var spins = 0
            while pending.load(ordering: .acquiring) > 0 {
                spins += 1
                // A worker that lost its core (a busy host) is better waited for without burning ours.
                if spins > Self.spinLimit { sched_yield() }
            }
            jobContext = nil
        }
        busy.store(false, ordering: .releasing)
    }

    private func work(part: Int) {
        // Workers only ever run kernels: they keep the kernels' mode (see Interpreter.invoke) for good.
        _ = floating_point_flush_denormals()
        var seen = 0
        while true {
            var spins = 0
            while generation.load(ordering: .acquiring) == seen {
                spins += 1
                if spins > Self.spinLimit {
                    park(seen: seen)
                    spins = 0
                }
            }
            seen = generation.load(ordering: .acquiring)
            if part < partCount, let jobContext { jobType.run(at: jobContext, part: part) }
            pending.subtract(1, ordering: .releasing)
        }
    }

    private func park(seen: Int) {
        pthread_mutex_lock(mutex)
        sleepers.add(1, ordering: .sequentiallyConsistent)
        // Either the submitter sees this sleeper and broadcasts under the mutex (which we hold until waiting),
        // or we see its new generation here: a wake-up cannot be lost.
        while generation.load(ordering: .sequentiallyConsistent) == seen {
            pthread_cond_wait(condition, mutex)
        }
        sleepers.subtract(1, ordering: .sequentiallyConsistent)
        pthread_mutex_unlock(mutex)
    }
}

/// Work split in parts that may run on different threads at once (they must touch disjoint outputs).
protocol PartitionedWork {
    func run(part: Int)
}

extension PartitionedWork {
    /// Runs part `part` of the work value at `pointer` (which holds a `Self`).
    static func run(at pointer: UnsafeRawPointer, part: Int) {
        pointer.assumingMemoryBound(to: Self.self).pointee.run(part: part)
    }
}

private struct IdleWork: PartitionedWork {
    func run(part: Int) {}
}
