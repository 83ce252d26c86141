public import Synchronization

/// Whether an iteration's tasks were started, read without a lock: the
/// consumer's `next` asks on every call, and only the first one goes on to
/// start them (under the storage's lock, which decides what to start).
@usableFromInline
final class StartLatch: Sendable {
    @usableFromInline let opened = Atomic<Bool>(false)

    @inlinable
    init() {}

    /// `true` for the first call only.
    @inlinable
    func open() -> Bool {
        !opened.load(ordering: .acquiring) && !opened.exchange(true, ordering: .acquiringAndReleasing)
    }
}
