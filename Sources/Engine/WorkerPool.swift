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
///
/// Parts are not assigned to threads: every thread, the caller included, claims the next unclaimed part until none
/// is left (XNNPACK's pthreadpool steals work the same way), and the caller waits only for parts that were claimed.
/// On a shared host a worker can lose its core for a scheduler slice (milliseconds); with part i fixed to worker i
/// the caller waited that long on every operator the worker had not yet started, where now it runs those parts
/// itself. A worker that wakes after the job is gone sees a newer claim word and never touches the job.
final class WorkerPool: @unchecked Sendable {
    /// Shared by all interpreters; sized to the machine (at least one worker, so that 2-thread runs split even
    /// where the process sees one core).
    static let shared = WorkerPool(workers: max(1, ProcessInfo.processInfo.activeProcessorCount - 1))

    let workerCount: Int
    /// Bumped once per job; a worker runs a job when it sees a generation it has not seen yet.
    private let generation = Atomic<Int>(0)
    /// The current job's generation (high 32 bits), part count (next 16) and next unclaimed part (low 16): claiming
    /// a part is one compare-and-exchange that also checks the job is still the one the claimer woke for.
    private let claims = Atomic<Int>(0)
    /// Parts of the current job that have finished.
    private let finished = Atomic<Int>(0)
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
            let thread = Thread { [unowned(unsafe) self] in self.work() }
            thread.name = "engine-worker-\(index)"
            thread.start()
        }
    }

    /// Runs `work.run(part)` for part in 0..<parts on the calling thread and the workers, each part once, and
    /// returns when all are done. Runs every part on the calling thread when the pool is busy with another
    /// interpreter's job.
    func run<Work: PartitionedWork>(parts: Int, _ work: Work) {
        guard parts > 1, parts < 1 << 16,
              busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            for part in 0..<parts { work.run(part: part) }
            return
        }
        withUnsafePointer(to: work) { pointer in
            jobType = Work.self
            jobContext = UnsafeRawPointer(pointer)
            finished.store(0, ordering: .relaxed)
            let job = generation.load(ordering: .relaxed) &+ 1
            // Published before the generation: a worker that sees the new generation sees this job's claim word.
            claims.store(Self.claimWord(job: job, parts: parts, next: 0), ordering: .releasing)
            generation.store(job, ordering: .sequentiallyConsistent)
            if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
                pthread_mutex_lock(mutex)
                pthread_cond_broadcast(condition)
                pthread_mutex_unlock(mutex)
            }
            var ran = 0
            while let part = claim(job: job) {
                work.run(part: part)
                ran += 1
            }
            // Parts the workers claimed may still be running.
            if ran < parts {
                finished.add(ran, ordering: .relaxed)
                var spins = 0
                while finished.load(ordering: .acquiring) < parts {
                    spins += 1
                    // A worker that lost its core (a busy host) is better waited for without burning ours.
                    if spins > Self.spinLimit { sched_yield() }
                }
            }
            jobContext = nil
        }
        busy.store(false, ordering: .releasing)
    }

    /// Generations wrap at 31 bits in the claim word, which stays positive.
    private static func claimWord(job: Int, parts: Int, next: Int) -> Int { (job & 0x7FFF_FFFF) << 32 | parts << 16 | next }

    /// Claims the next part of job `job`, or nil when none is left or the pool has moved on to another job.
    private func claim(job: Int) -> Int? {
        var word = claims.load(ordering: .acquiring)
        while true {
            let parts = (word >> 16) & 0xFFFF, next = word & 0xFFFF
            guard word >> 32 == job & 0x7FFF_FFFF, next < parts else { return nil }
            let (exchanged, original) = claims.compareExchange(expected: word, desired: word &+ 1, ordering: .acquiringAndReleasing)
            if exchanged { return next }
            word = original
        }
    }

    private func work() {
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
            // The job's type and context are read only after a part is claimed: until that part finishes, the
            // caller is still inside run(parts:_:) and the context lives.
            while let claimed = claim(job: seen) {
                jobType.run(at: jobContext!, part: claimed)
                finished.add(1, ordering: .releasing)
            }
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
