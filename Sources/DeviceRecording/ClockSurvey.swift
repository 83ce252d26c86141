public import Devices

/// A first pass over a device's notifications, before they are recorded,
/// that fits each of its sample clocks over its whole run at once (an
/// import has every notification at hand before any time is needed). A
/// recorder given the ``FittedSampleTimes`` stamps the same notifications
/// with them: the whole-run fit, which online timing only reaches once its
/// window has seen the delivery delay's beat (`docs/time.md`).
///
/// Not `Sendable`: one task feeds it.
public protocol ClockSurvey: AnyObject {
    /// Adds one notification, as the recorder will be given it.
    func add(_ notification: RawNotification)
    /// The fitted times of every notification added so far.
    func fittedTimes() -> FittedSampleTimes
}
