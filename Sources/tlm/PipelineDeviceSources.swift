import Devices
import Pipeline
import Recording

/// A device whose notifications arrive by themselves — a live BLE device, or
/// a capture file played back — as opposed to a simulator the session paces.
///
/// **This is the seam where live capture plugs in.** `PipelineSession` asks
/// ``PipelineDeviceSources/external(for:)`` for one feed per `live:` or
/// `capture:` device, registers a device recorder for it and runs
/// ``run(deliver:)`` in a task of its own; each delivered notification goes
/// through the same bounded ingest buffer, decoders and pipeline engine as a
/// simulated one. Until the Capture module provides feeds, `external(for:)`
/// says plainly that this build cannot run such a device.
protocol ExternalDeviceFeed: Sendable {
    /// The device's family (picks the decoder).
    var family: DeviceFamily { get }
    /// The identifier used in topics (for BLE: from the address or advertisement).
    var identifier: String { get }
    /// A display name.
    var displayName: String { get }
    /// Facts recorded with the device.
    var facts: [String: String] { get }
    /// Delivers notifications, stamped with their host receive time, until
    /// the source ends or the task is cancelled.
    func run(deliver: @escaping @Sendable (RawNotification) -> Void) async throws
}

/// Where the devices of a pipeline come from, other than simulators.
enum PipelineDeviceSources {
    /// The feed of a `live:` or `capture:` device.
    ///
    /// - Throws: ``PipelineError`` (`.unsupportedSource`): nothing is wired in this build yet.
    static func external(for device: PipelineDevice) throws(PipelineError) -> any ExternalDeviceFeed {
        // The Capture module's BLE feed (by address or name) and a capture-file
        // reader belong here.
        throw device.unsupportedSourceError
    }
}
