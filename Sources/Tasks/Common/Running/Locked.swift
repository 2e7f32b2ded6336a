#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a pthread mutex, with `Synchronization.Mutex`'s shape (`withLock`, typed throws, `sending`).
///
/// Why not `Mutex`: on Linux its contended path is futex calls inside the Synchronization library, which
/// ThreadSanitizer does not see, so every value it guards reads as a data race under `swift test
/// --sanitize=thread` (four threads appending to an array under `Mutex` report a "Swift access race" with Swift
/// 6.3; under this type, none). TSan intercepts pthread's mutex, and uncontended it costs the same atomic exchange.
/// Shared by the tasks and ML Kit (`package`), and by their tests.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only reached inside `withLock`, under `mutex`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private nonisolated(unsafe) var value: Value

    package init(_ value: sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
