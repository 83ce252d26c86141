/// Sees which clock each time-based operator is timed on: the task executor
/// a test prefers (``StreamsTaskExecutor``) can be one, so that a test
/// scheduler learns of an operator that runs its timers on a clock it does
/// not drive.
///
/// Told once per iterator of a time-based operator, when it is made, with
/// the clock the operator was given (not the adapter Streams times it
/// through).
package protocol TimingObserver: Sendable {
    /// An operator's iterator was made, timed on `clock`.
    ///
    /// - Parameter clock: The clock the operator was given.
    func operatorTimed(on clock: Any)
}
