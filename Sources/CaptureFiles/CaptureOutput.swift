public import Devices

/// What the extraction of a capture hands to a recorder: a device's value
/// as a notification, or lost data.
public enum CaptureOutput: Sendable, Hashable {
    /// A value of the device at `device` in ``CaptureInventory/devices``,
    /// stamped with the capture's host time.
    case notification(device: Int, RawNotification)
    /// Data lost at `time`: `count` elements, or a gap of `duration` (a
    /// disconnection until the next connection), of the device at `device`
    /// when known.
    case loss(device: Int?, time: UInt64, count: Int, duration: Duration?, reason: String)
}
