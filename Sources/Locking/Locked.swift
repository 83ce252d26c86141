// Public: `withLock` is inlinable, so code that specialises it in other
// modules (Streams' storages, inlined into their clients) calls the mutex.
#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#elseif canImport(Darwin)
public import Darwin
#endif

/// A value guarded by a POSIX mutex: the one lock of this package. Every
/// storage of `Streams` holds its state machine in one, and `DBus`,
/// `TelemetryTesting`, `Capture` and `tlm` guard their shared state with it.
///
/// It has the shape of the standard library's `Synchronization.Mutex` (a
/// noncopyable value with `withLock`), but is built on `pthread_mutex_t`,
/// which ThreadSanitizer intercepts. On Linux `Mutex` is built on raw
/// futex calls inside a library that is not instrumented, so under
/// `--sanitize=thread` every access it guards was reported as a race; with
/// this lock the sanitizer sees each acquire and release, and a report
/// means a real race. Uncontended, a pthread mutex costs one atomic
/// exchange each way, like `Mutex`.
///
/// The mutex and the value live in one heap block that never moves, as a
/// pthread mutex must not be moved once initialized.
@usableFromInline
package struct Locked<Value: ~Copyable>: ~Copyable {
    @usableFromInline let storage: UnsafeMutablePointer<Box>

    @usableFromInline
    struct Box: ~Copyable {
        @usableFromInline var mutex = pthread_mutex_t()
        @usableFromInline var value: Value
    }

    /// Creates a lock guarding `value`.
    @usableFromInline
    package init(_ value: consuming Value) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: Box(value: value))
        pthread_mutex_init(&storage.pointee.mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(&storage.pointee.mutex)
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    ///
    /// - Parameter body: Reads or changes the value; it must not take this
    ///   lock again.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    @inlinable @inline(__always)
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(&storage.pointee.mutex)
        defer { pthread_mutex_unlock(&storage.pointee.mutex) }
        return try body(&storage.pointee.value)
    }
}

extension Locked: @unchecked Sendable where Value: ~Copyable {}
