import CFloatingPoint
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
    /// Bumped once per job; a worker joins a job when it sees a generation it has not seen yet.
    private let generation = Atomic<Int>(0)
    /// The last generation whose items are all done: a worker that arrives later must not touch its job.
    private let closed = Atomic<Int>(0)
    /// Workers between joining a job and leaving it; the submitter waits for none before it returns.
    private let inside = Atomic<Int>(0)
    /// Items of the current job finished so far (added by each thread as it leaves).
    private let done = Atomic<Int>(0)
    private let sleepers = Atomic<Int>(0)
    /// Held by the thread whose job is running; others find it taken and run alone.
    private let busy = Atomic<Bool>(false)
    /// One queue of items per thread (index 0: the submitter).
    private let queues: [ItemQueue]
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    // Written by the submitting thread only while no worker reads them: before the generation is bumped
    // (release) and after the job is closed with no worker inside (acquire). The job is the work's type and a
    // pointer to the caller's work value on its stack, not a closure: handing a closure to another thread needs an
    // escaping copy, which Swift boxes on the heap at every call (so does a generic closure left unspecialized).
    private var jobType: any PartitionedWork.Type = IdleWork.self
    private var jobContext: UnsafeRawPointer?
    private var partCount = 0

    /// Spin iterations (an atomic load each, about a nanosecond) before a worker parks: some 10–20 µs, longer than
    /// the gap between two operators, shorter than the pre-processing between two models. Limits 10× and 50×
    /// longer measured the same (`bench models`, face and pose models at 2 threads).
    private static let spinLimit = 20_000

    private init(workers: Int) {
        workerCount = workers
        queues = (0...workers).map { _ in ItemQueue() }
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        for index in 1...workers {
            let thread = Thread { [unowned(unsafe) self] in self.work(thread: index) }
            thread.name = "engine-worker-\(index)"
            thread.start()
        }
    }

    /// Runs `work.run(item:)` for every item in 0..<items, split in `parts` equal runs of items: run i belongs to
    /// thread i (0: the calling thread), which takes its items from the front; a thread out of items of its own
    /// takes the others' from the back. Returns when all are done.
    ///
    /// Why the taking: on a shared host a core can stall for a while (another tenant, an interrupt), and with a
    /// fixed split every operator then waits for its slowest part; LiteRT's pthreadpool steals the same way.
    /// Runs every item on the calling thread when the pool is busy with another interpreter's job or `parts`
    /// exceeds the threads.
    func run<Work: PartitionedWork>(items: Int, parts: Int, _ work: Work) {
        guard parts > 1, parts <= workerCount + 1, items >= parts,
              busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            for item in 0..<items { work.run(item: item) }
            return
        }
        withUnsafePointer(to: work) { pointer in
            jobType = Work.self
            jobContext = UnsafeRawPointer(pointer)
            partCount = parts
            for part in 0..<parts {
                queues[part].reset(items * part / parts..<items * (part + 1) / parts)
            }
            done.store(0, ordering: .relaxed)
            let job = generation.add(1, ordering: .sequentiallyConsistent).newValue
            if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
                pthread_mutex_lock(mutex)
                pthread_cond_broadcast(condition)
                pthread_mutex_unlock(mutex)
            }
            done.add(runItems(Work.self, pointer, thread: 0, parts: parts), ordering: .releasing)
            var spins = 0
            while done.load(ordering: .acquiring) < items {
                spins += 1
                // A worker that lost its core (a busy host) is better waited for without burning ours.
                if spins > Self.spinLimit { sched_yield() }
            }
            // Dekker with the workers' join: either a late worker sees the job closed, or we see it inside.
            closed.store(job, ordering: .sequentiallyConsistent)
            while inside.load(ordering: .sequentiallyConsistent) > 0 {}
            jobContext = nil
        }
        busy.store(false, ordering: .releasing)
    }

    /// Thread `thread`'s share of a job: its own queue from the front, then the others' from the back. Returns
    /// how many items it ran.
    private func runItems<Work: PartitionedWork>(_: Work.Type, _ work: UnsafePointer<Work>, thread: Int, parts: Int) -> Int {
        var count = 0
        if thread < parts {
            let own = queues[thread]
            while let item = own.takeFront() {
                work.pointee.run(item: item)
                count += 1
            }
        }
        for offset in 1..<parts {
            let other = queues[(thread + offset) % parts]
            while let item = other.takeBack() {
                work.pointee.run(item: item)
                count += 1
            }
        }
        return count
    }

    private func work(thread: Int) {
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
            inside.add(1, ordering: .sequentiallyConsistent)
            if closed.load(ordering: .sequentiallyConsistent) < seen, let jobContext {
                done.add(jobType.runItems(of: self, at: jobContext, thread: thread, parts: partCount), ordering: .releasing)
            }
            inside.subtract(1, ordering: .releasing)
        }
    }

    /// Opens the existential job type for `runItems`.
    fileprivate func runItems<Work: PartitionedWork>(_ type: Work.Type, at context: UnsafeRawPointer, thread: Int, parts: Int) -> Int {
        runItems(type, context.assumingMemoryBound(to: Work.self), thread: thread, parts: parts)
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

/// One thread's run of a job's items: the owner takes from the front, other threads from the back.
///
/// Both sides first take one from `remaining`, so that together they never take more than the run holds; then
/// the owner's items count up from the start and the others' down from the end, and cannot meet.
private final class ItemQueue: @unchecked Sendable {
    private let remaining = Atomic<Int>(0)
    private let end = Atomic<Int>(0)
    /// Read and written by the owner only (and by the submitter before the job starts).
    private var front = 0
    /// Keeps two queues' counters off one cache line: owner and thieves hammer them from different cores.
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

    func reset(_ items: Range<Int>) {
        front = items.lowerBound
        end.store(items.upperBound, ordering: .relaxed)
        remaining.store(items.count, ordering: .relaxed)
    }

    func takeFront() -> Int? {
        guard remaining.subtract(1, ordering: .acquiringAndReleasing).oldValue > 0 else { return nil }
        defer { front += 1 }
        return front
    }

    func takeBack() -> Int? {
        guard remaining.subtract(1, ordering: .acquiringAndReleasing).oldValue > 0 else { return nil }
        return end.subtract(1, ordering: .acquiringAndReleasing).newValue
    }
}

/// Work split in items that may run on different threads at once (they must touch disjoint outputs).
protocol PartitionedWork {
    func run(item: Int)
}

extension PartitionedWork {
    fileprivate static func runItems(of pool: WorkerPool, at context: UnsafeRawPointer, thread: Int, parts: Int) -> Int {
        pool.runItems(Self.self, at: context, thread: thread, parts: parts)
    }
}

private struct IdleWork: PartitionedWork {
    func run(item: Int) {}
}
