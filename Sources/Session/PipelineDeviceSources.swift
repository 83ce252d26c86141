import Capture
import Devices
import Pipeline

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
