public import Devices
public import Recording

/// Turns one device's raw notifications into recorded streams: the raw
/// stream of each characteristic, and the typed streams its family decoder
/// produces. Each family has one; a live session and a simulated one use the
/// same recorder, so they differ only in where packets come from.
///
/// Not `Sendable`: it belongs to the task that owns the `Recorder`.
public protocol DeviceRecorder: AnyObject {
    /// The device whose notifications this records.
    var device: DeviceHandle { get }
    /// Decoded values recorded so far.
    var decodedCount: Int { get }
    /// Notifications that failed to decode (each also written as a loss record).
    var decodeErrorCount: Int { get }
    /// Records one notification: its raw bytes and what it decodes to.
    func record(_ notification: RawNotification) throws(RecordingError)
}
