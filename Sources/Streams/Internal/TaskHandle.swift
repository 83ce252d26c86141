public import Locking

/// The task running an operator's producers, settable once and cancellable
/// at any time: a cancel that comes before the task is set cancels it as
/// soon as it is set.
@usableFromInline
final class TaskHandle: Sendable {
    @usableFromInline let state = Locked<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))

    /// Stores the task, or cancels it at once if ``cancel()`` came first.
    @inlinable
    func set(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state in
            if !state.cancelled {
                state.task = task
            }
            return state.cancelled
        }
        if cancelled {
            task.cancel()
        }
    }

    /// Cancels the task, now or when it is set.
    @inlinable
    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task.take()
        }
        task?.cancel()
    }
}
