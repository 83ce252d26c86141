import CaptureFiles
import DeviceRecording
import Devices
import Families
import Foundation
import Pipeline
import Recording

/// One device of a capture file as a pipeline feed (`source: {capture: …}`):
/// the file is surveyed when the feed opens (the device picked by address,
/// or the first device of the pipeline device's family), then read again
/// as fast as the recorder takes it — `send(waitingFor:)` waits while the
/// ingest buffer is nearly full, so nothing is dropped — with the capture's
/// host times as log times and its losses as loss records.
struct CaptureFileFeed: ExternalDeviceFeed {
    let capture: CaptureImport
    let inventory: CaptureInventory
    let index: Int
    let family: DeviceFamily
    let identifier: String
    let displayName: String
    let facts: [String: String]

    var endsByItself: Bool { true }

    /// Surveys `path` and picks the pipeline device's device in it.
    ///
    /// - Throws: ``CaptureFileError`` when the file cannot be read, or
    ///   `PipelineError` when it holds no matching device.
    static func open(
        path: String, address: String?, device: PipelineDevice, families: FamilyRegistry
    ) throws
        -> CaptureFileFeed
    {
        let capture = CaptureImport(files: [path], families: families)
        let inventory = try capture.survey()
        let index: Int?
        if let address {
            index = inventory.devices.firstIndex { $0.peer.address == address.uppercased() }
        } else {
            index = inventory.devices.firstIndex { $0.family == device.family }
        }
        let found = inventory.devices.map { "\($0.peer.address ?? $0.identifier) (\($0.family?.rawValue ?? "ble"))" }
        guard let index else {
            throw PipelineError(
                .unsupportedSource, at: device.location,
                "device '\(device.name)': \(path) holds no \(device.family.rawValue) device"
                    + (address.map { " with address \($0)" } ?? "")
                    + " with values (found: \(found.isEmpty ? "none" : found.joined(separator: ", ")))")
        }
        let captured = inventory.devices[index]
        guard captured.family == nil || captured.family == device.family else {
            throw PipelineError(
                .unsupportedSource, at: device.location,
                "device '\(device.name)': \(address ?? "") in \(path) is a "
                    + "\(captured.family?.rawValue ?? "ble") device, not \(device.family.rawValue)")
        }
        var facts = captured.facts
        facts["capture_file"] = path
        return CaptureFileFeed(
            capture: capture, inventory: inventory, index: index, family: device.family,
            identifier: captured.identifier, displayName: captured.displayName, facts: facts)
    }

    func run(service: RecorderService, device: Int) async throws {
        var extractor = try capture.extractor(for: inventory, only: index)
        var count = 0
        while let output = try extractor.next() {
            count += 1
            if count & 0xFF == 0 { await Task.yield() }
            switch output {
            case .notification(_, let notification):
                guard await service.send(waitingFor: notification, device: device) else { return }
            case .loss(_, let time, let lost, let duration, let reason):
                guard
                    await service.recordLoss(
                        waiting: device, time: time, count: lost, duration: duration,
                        reason: reason)
                else { return }
            }
        }
    }
}
