import Dispatch

/// Splits a kernel's independent work (output rows, pixels, elements) over the interpreter's threads.
///
/// libdispatch's `concurrentPerform` runs chunk 0 on the calling thread and the rest on its worker pool; with
/// OpenBLAS kept single-threaded (see `ExecutionPlan`), each core runs one chunk and nothing oversubscribes.
struct Parallel: Sendable {
    let threads: Int

    /// Calls `body` with `threads` contiguous slices of 0..<count (fewer when count is small).
    @inline(__always)
    func forEach(_ count: Int, minimumPerThread: Int = 1, _ body: (Range<Int>) -> Void) {
        let chunks = min(threads, max(1, count / max(minimumPerThread, 1)))
        if chunks <= 1 {
            body(0..<count)
            return
        }
        withoutActuallyEscaping(body) { body in
            // The slices are disjoint, so the closure is safe to call from several threads at once.
            let shared = UncheckedSendable(body)
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                let start = count * chunk / chunks, end = count * (chunk + 1) / chunks
                if start < end { shared.value(start..<end) }
            }
        }
    }
}

/// Carries a value into a `@Sendable` closure when the caller guarantees the concurrent uses are disjoint.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
