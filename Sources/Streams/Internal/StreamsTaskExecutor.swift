/// The task executor the tasks that Streams' operators start should prefer.
///
/// An unstructured `Task {}` does not inherit its creator's task executor
/// preference, so the operators that run their upstreams or timers in tasks
/// of their own (the merges, the flat maps, combineLatest and zip, share,
/// the time-based operators) start them with
/// `Task(executorPreference: StreamsTaskExecutor.preferred)`. It is `nil`
/// (no preference, the global executor) unless a test sets it: the
/// `TestScheduler` of `TelemetryTesting` binds it to its counting executor,
/// so every task of the pipeline under test runs where the scheduler can
/// see whether any work is left.
@usableFromInline
package enum StreamsTaskExecutor {
    /// The preference for the tasks started in this task's scope; inherited
    /// by the tasks started from it, as every task-local value is.
    @TaskLocal package static var preferred: (any TaskExecutor)?

    /// ``preferred``, for inlinable code (which cannot name the task-local).
    @usableFromInline
    package static var current: (any TaskExecutor)? { preferred }

    /// Tells the preferred executor which clock an operator is timed on, if
    /// it is a ``TimingObserver`` (a test scheduler's); with no preference,
    /// a task-local read and nothing else. The operators time themselves
    /// through an ``OffsetClock`` over the clock they were given: the
    /// observer is told that one.
    @usableFromInline
    package static func noteTiming<C: Clock>(on clock: C) {
        guard let observer = preferred as? any TimingObserver else {
            return
        }
        if let adapter = clock as? any ClockAdapter {
            observer.operatorTimed(on: adapter.adaptedClock)
        } else {
            observer.operatorTimed(on: clock)
        }
    }
}
