/// A clock of your own that times on a ``ManualClock``: conform it, and a
/// ``TestScheduler`` knows an operator timed on it runs on its clock.
///
/// The scheduler reports an operator timed on any clock but its own (see
/// ``TestRun/issues``), because such timers run where it cannot see them.
/// A wrapper it cannot look into — a type-erased clock injected into the
/// code under test — is reported too, though it sleeps on the scheduler's
/// clock; conforming it says which `ManualClock` it times on.
///
/// ```swift
/// struct InjectedClock: Clock, ManualClockWrapper {
///     let base: ManualClock
///     var wrappedManualClock: ManualClock { base }
///     // now, minimumResolution and sleep(until:tolerance:) forward to base
/// }
/// ```
public protocol ManualClockWrapper {
    /// The manual clock this clock reads and sleeps on.
    var wrappedManualClock: ManualClock { get }
}
