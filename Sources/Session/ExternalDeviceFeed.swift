public import DeviceRecording
public import Devices
import Recording

/// A device whose notifications arrive by themselves — a live BLE device, or
/// a capture file played back — as opposed to a simulator the session paces.
///
/// ``RecordingSession`` makes one feed per `live:` or `capture:` device of its
/// pipeline (a program may add its own), registers a device recorder for it
/// and runs ``run(service:device:)`` in a task of its own; each delivered
/// notification goes through the same bounded ingest buffer, decoders and
/// pipeline engine as a simulated one.
public protocol ExternalDeviceFeed: Sendable {
    /// The device's family (picks the decoder).
    var family: DeviceFamily { get }
    /// The identifier used in topics (for BLE: from the address or advertisement).
    var identifier: String { get }
    /// A display name.
    var displayName: String { get }
    /// Facts recorded with the device.
    var facts: [String: String] { get }
    /// Delivers notifications (stamped with their host receive time) and
    /// losses to `service` as device `index`, until the source ends or the
    /// task is cancelled.
    func run(service: RecorderService, device index: Int) async throws
    /// Whether the feed ends by itself (a capture file read to its end):
    /// when every external feed of a session does and no duration is set,
    /// the session ends with them. A live device runs until stopped.
    var endsByItself: Bool { get }
}

extension ExternalDeviceFeed {
    /// Live by default: the feed runs until the session stops it.
    public var endsByItself: Bool { false }
}
