public import Devices

/// Where a ``DeviceLink`` delivers what it captures: raw notifications with
/// their host receive time, and losses (gaps while disconnected, dropped
/// signals). Notifications come from the D-Bus connection's thread
/// (`StartNotify`), a socket reader's thread (`AcquireNotify`) or the link's
/// task, one source at a time per characteristic and in order; losses and
/// states from the link's task. Implementations hand the data on (for
/// example to a `RecorderService`) and return quickly: a notification
/// holds up the connection's other signals until `receive` returns.
public protocol CaptureSink: Sendable {
    /// A notification (or a value read once after connecting), as received.
    func receive(_ notification: RawNotification)
    /// Data that was lost at `time`: `count` elements, or a gap of `duration`.
    func lost(time: UInt64, count: Int, duration: Duration?, reason: String)
    /// The link's state changed (for status lines and logs).
    func stateChanged(_ state: DeviceLink.State)
}
