import Capture
import Devices
import Families
import Pipeline
import Recording

/// A device whose notifications arrive by themselves — a live BLE device, or
/// a capture file played back — as opposed to a simulator the session paces.
///
/// `PipelineSession` asks ``PipelineDeviceSources/external(for:)`` for one
/// feed per `live:` or `capture:` device, registers a device recorder for it
/// and runs ``run(service:device:)`` in a task of its own; each delivered
/// notification goes through the same bounded ingest buffer, decoders and
/// pipeline engine as a simulated one.
protocol ExternalDeviceFeed: Sendable {
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
}

/// Where the devices of a pipeline come from, other than simulators.
enum PipelineDeviceSources {
    /// The feeds of the pipeline's `live:` and `capture:` devices, in order.
    /// Live devices are looked up now (BlueZ running, an adapter, the device
    /// known or heard in a scan), so a recording is only created when they
    /// can be captured.
    ///
    /// - Throws: `CaptureError` (no bus, no BlueZ, no adapter, device not
    ///   found) or `PipelineError` for a capture file (not readable by this build).
    static func external(for devices: [PipelineDevice], acquireNotify: Bool = false) async throws
        -> [any ExternalDeviceFeed]
    {
        var feeds: [any ExternalDeviceFeed] = []
        var central: BluetoothCentral?
        for device in devices {
            switch device.source {
            case .simulated:
                continue
            case .capture:
                throw device.unsupportedSourceError
            case .live(let address, let name):
                let bluetooth = try central ?? BluetoothCentral.systemBus()
                central = bluetooth
                feeds.append(try await LiveDeviceFeed.open(central: bluetooth, query: address ?? name ?? "",
                                                          family: device.family, acquireNotify: acquireNotify))
            }
        }
        return feeds
    }
}
