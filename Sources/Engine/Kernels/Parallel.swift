/// Splits a kernel's independent work (output rows, pixels, elements) over the interpreter's threads.
///
/// The parts run on the process's ``WorkerPool`` (part 0 on the calling thread); with OpenBLAS kept
/// single-threaded (see `ExecutionPlan`), each core runs one part and nothing oversubscribes.
struct Parallel: Sendable {
    /// Parts a kernel's work is split into: the interpreter's threads, at most one per pool thread.
    let threads: Int

    init(threads: Int) {
        self.threads = max(1, min(threads, WorkerPool.shared.workerCount + 1))
    }

    /// Calls `loop.run` with `threads` contiguous, disjoint slices of 0..<count (fewer when count is small).
    ///
    /// The loop is a value rather than a closure so that handing it to other threads allocates nothing.
    @inline(__always)
    func forEach<Loop: ParallelLoop>(_ count: Int, minimumPerThread: Int = 1, _ loop: Loop) {
        let parts = min(threads, max(1, count / max(minimumPerThread, 1)))
        if parts <= 1 {
            loop.run(0..<count)
            return
        }
        WorkerPool.shared.run(parts: parts, Slices(loop: loop, count: count, parts: parts))
    }

    private struct Slices<Loop: ParallelLoop>: PartitionedWork {
        let loop: Loop
        let count: Int
        let parts: Int

        func run(part: Int) {
            let start = count * part / parts, end = count * (part + 1) / parts
            if start < end { loop.run(start..<end) }
        }
    }
}

/// The body of a loop whose iterations write disjoint outputs, so that slices of it may run at once. Keep conforming
/// types non-generic: the worker threads call `run` through the conformance's witness (``WorkerPool`` keeps the job's
/// type, not its specialization), and a generic type's witness is its unspecialized code — a loop generic over its
/// element type ran its SIMD steps through the runtime's generic metadata there, 60 times slower than on the calling
/// thread (QuantizedResizeBilinearKernel's rows). Pick the element inside `run` instead.
protocol ParallelLoop {
    func run(_ range: Range<Int>)
}
