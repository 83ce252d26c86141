// Public: the storage is inlinable (specialised in its clients) and locks with `Locked`.
public import Locking

/// The shared, lock-protected state of a subject, referenced by the
/// subject, its subscriptions and its iterators.
///
/// The lock guards the ``SubjectStateMachine``; every method resumes
/// continuations only after releasing it.
@usableFromInline
final class SubjectStorage<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline let state: Locked<SubjectStateMachine<Element, Failure>>

    @inlinable
    init(policy: SubjectBufferingPolicy) {
        state = Locked(SubjectStateMachine(policy: policy))
    }

    /// A storage whose new consumers first receive up to `replayLimit` of
    /// the latest sent elements (`initialReplay` until something is sent).
    @inlinable
    init(
        policy: SubjectBufferingPolicy,
        replayLimit: Int,
        initialReplay: [Element],
        replaysAfterTermination: Bool
    ) {
        state = Locked(
            SubjectStateMachine(
                policy: policy,
                replayLimit: replayLimit,
                initialReplay: initialReplay,
                replaysAfterTermination: replaysAfterTermination
            )
        )
    }

    /// The latest sent elements kept for replay, oldest first.
    @inlinable
    var replayBuffer: [Element] {
        state.withLock { $0.replayBuffer }
    }

    @inlinable
    var droppedCount: Int {
        state.withLock { $0.droppedCount }
    }

    @inlinable
    var consumerCount: Int {
        state.withLock { $0.consumers.count }
    }

    @inlinable
    var isTerminated: Bool {
        state.withLock { $0.terminal != nil }
    }

    /// Waits until at least `count` consumers are suspended in `next`;
    /// returns early if the waiting task is cancelled.
    @inlinable
    func waitForSuspended(atLeast count: Int) async {
        let id = state.withLock { $0.makeID() }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                // Cancellation is checked under the lock, so a handler that
                // runs later finds the waiter registered.
                let waiting = state.withLock { state in
                    !Task.isCancelled && state.waitForSuspended(id, count: count, continuation)
                }
                if !waiting {
                    continuation.resume()
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.removeSuspensionWaiter(id) }
            waiter?.continuation.resume()
        }
    }

    @inlinable
    func subscribe() -> Int {
        state.withLock { $0.subscribe() }
    }

    @inlinable
    func send(_ element: Element) -> SubjectSendResult {
        let (result, resumption) = state.withLock { $0.send(element) }
        resumption.resume(with: .success(element))
        return result
    }

    @inlinable
    func terminate(_ end: SubjectStateMachine<Element, Failure>.Terminal) {
        let resumption = state.withLock { $0.terminate(end) }
        resumption.resume(with: end.result)
    }

    /// Removes a consumer and ends its pending `next` with `nil`.
    @inlinable
    func remove(_ id: Int) {
        let continuation = state.withLock { $0.remove(id) }
        continuation?.resume(returning: .success(nil))
    }

    /// The consumer's next event: an element, the end (`nil`) or the failure.
    ///
    /// With an unbounded buffer, the elements buffered after the returned
    /// one move to `batch` (empty on entry), for the iterator to take
    /// without the lock.
    @inlinable
    func next(
        _ id: Int, batch: inout Queue<Element>, isolation actor: isolated (any Actor)?
    ) async -> Result<Element?, Failure> {
        if Task.isCancelled {
            remove(id)
            return .success(nil)
        }
        if let result = state.withLock({ $0.pollBatch(id, into: &batch) }) {
            return result
        }
        return await withTaskCancellationHandler {
            // Passing (capturing) `actor` keeps this closure on the caller's actor: a
            // closure that does not capture it runs nonisolated, and a main-actor
            // consumer hopped off and back on for every wait.
            await withUnsafeContinuation(isolation: actor) { continuation in
                switch state.withLock({ $0.suspend(id, continuation) }) {
                case .resume(let result):
                    continuation.resume(returning: result)
                case .suspended(let waiters):
                    for waiter in waiters {
                        waiter.continuation.resume()
                    }
                }
            }
        } onCancel: {
            self.remove(id)
        }
    }
}
