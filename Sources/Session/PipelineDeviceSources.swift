import Capture
import CaptureFiles
import Devices
import Foundation
import Pipeline

/// Where the devices of a pipeline come from, other than simulators.
enum PipelineDeviceSources {
    /// The feeds of the pipeline's `live:` and `capture:` devices, in order.
    /// Live devices are looked up now (BlueZ running, an adapter, the device
    /// known or heard in a scan), so a recording is only created when they
    /// can be captured.
    ///
    /// Capture files are surveyed now too, so a device missing from its file
    /// is an error before a recording exists.
    ///
    /// - Throws: `CaptureError` (no bus, no BlueZ, no adapter, device not
    ///   found), `CaptureFileError` for an unreadable capture file, or
    ///   `PipelineError` for a capture without the device.
    static func external(
        for pipeline: Pipeline, acquireNotify: Bool = false
    ) async throws
        -> [any ExternalDeviceFeed]
    {
        var feeds: [any ExternalDeviceFeed] = []
        var central: BluetoothCentral?
        for device in pipeline.devices {
            switch device.source {
            case .simulated:
                continue
            case .capture(let path, let address):
                // Relative to the pipeline file's folder (a pipeline built in code: the current directory).
                var resolved = path
                if !path.hasPrefix("/"), !pipeline.file.isEmpty, !pipeline.text.isEmpty {
                    resolved =
                        URL(fileURLWithPath: pipeline.file).deletingLastPathComponent()
                        .appendingPathComponent(path).path
                }
                feeds.append(
                    try CaptureFileFeed.open(
                        path: resolved, address: address, device: device,
                        families: pipeline.families))
            case .live(let address, let name):
                let bluetooth = try central ?? BluetoothCentral.systemBus()
                central = bluetooth
                feeds.append(
                    try await LiveDeviceFeed.open(
                        central: bluetooth, query: address ?? name ?? "",
                        family: device.family, families: pipeline.families, acquireNotify: acquireNotify))
            }
        }
        return feeds
    }
}
