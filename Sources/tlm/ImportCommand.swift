import ArgumentParser
import CaptureFiles
import DeviceRecording
import Devices
import Families
import Foundation
import Pipeline
import Quantities
import Recording
import Session

/// `tlm import CAPTURE… --output REC`: Bluetooth HCI captures into a recording.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import Bluetooth HCI captures (btsnoop, pcapng, pcap) into a recording.",
        discussion: """
            Reads Android's btsnoop_hci.log, `btmon -w` files and Wireshark/tshark pcapng or pcap files \
            (btsnoop datalinks 1001, 1002, 2001; link types 187, 201, 254, 256). ACL fragments are \
            reassembled, ATT notifications, indications, multiple-handle notifications and read \
            responses become notifications stamped with the capture's host times, and the GATT \
            discovery in the capture names each handle's characteristic (--handle-map FILE when it \
            holds none). Advertisements and characteristics pick each device's family, whose decoder \
            makes the typed streams, as in a live recording; a device of no known family is recorded as \
            raw streams, family `ble`. Drops the capture marks, records it cut, frames never completed \
            and disconnections become loss records. Several files are read in the order of their first \
            timestamps (rotated logs of one host). Sample clocks (Jacquard ticks, DIoT channel rates) are \
            fitted over each clock's whole run before any value is written (--clock-fit online times \
            each delivery as a live recording does; docs/time.md).

            Handle map lines: [ADDRESS] HANDLE UUID, e.g. `0x0010 0000d001-0000-1000-8000-00805f9b34fb`.

            Examples:
              tlm import btsnoop_hci.log --output ride
              tlm import capture.pcapng --handle-map handles.txt --output ride
              tlm import btsnoop_hci.log --output ride --format json
              tlm import btsnoop_hci.log.last btsnoop_hci.log --pipeline Pipelines/diot-imu.yaml --output imu
            """
    )

    @Argument(help: "The capture files.", completion: .file())
    var captures: [String]

    @Option(
        name: [.short, .long], help: "The new recording directory (must not exist or be empty).", completion: .directory
    )
    var output: String

    @Option(
        help: "A file of handle → characteristic assignments, for captures without GATT discovery.",
        completion: .file())
    var handleMap: String?

    @Option(
        help: "Run the imported values through this pipeline file's derived streams.",
        completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String?

    @Option(
        help: ArgumentHelp(
            "When segment bytes are synced: batch (default: each segment once, at close, and only then "
                + "named in the index), chunk, segment or none.",
            valueName: "level"))
    var durability: Durability?

    @Option(
        help: ArgumentHelp(
            "How sample clocks are fitted: whole (each clock's whole run at once, in a pass of its own; "
                + "the default) or online (as a live recording times them).",
            valueName: "fit"))
    var clockFit: SampleTimeFit = .whole

    func validate() throws {
        if captures.isEmpty { throw ValidationError("name at least one capture file") }
    }

    @Option(help: "Output format of the summary: table or json.")
    var format: InfoCommand.Format = .table

    @OptionGroup var display: OutputOptions

    func run() async throws {
        var loaded: Pipeline?
        if let pipeline {
            do { loaded = try Pipeline(contentsOfFile: pipeline) } catch { throw CLIError(error.description) }
        }
        var map = HandleMap()
        if let handleMap {
            do { map = try HandleMap(contentsOfFile: handleMap) } catch { throw CLIError(error.message) }
        }
        let capture = CaptureImport(files: captures, families: loaded?.families ?? .builtIn, handleMap: map)
        let bar = ProgressBar("import", shown: !display.quiet, format: { InfoReport.bytes($0) })
        // An import is run again rather than resumed: batch durability unless
        // asked otherwise, even with a pipeline (its other settings apply).
        var configuration = loaded?.recorderConfiguration() ?? RecordingSession.importConfiguration
        configuration.durability = durability ?? .batch
        let session = RecordingSession(
            importing: capture, pipeline: loaded, directory: output,
            options: {
                var options = RecordingSession.Options(
                    configuration: configuration,
                    onReplayProgress: { done, total in bar.update(UInt64(done), of: UInt64(total)) })
                options.sampleTimeFit = clockFit
                return options
            }())
        let summary: RecordingSummary
        do {
            summary = try await SessionRunner.run(session, showsStatus: false)
        } catch {
            bar.finish()
            throw error
        }
        bar.finish()
        guard let inventory = session.captureInventory else { throw CLIError("the import found no inventory") }
        if format == .json {
            try JSONOutput.print(
                ImportReport(inventory, summary: summary, output: output, derived: loaded != nil), command: "import")
        } else {
            let report = Self.report(inventory, summary: summary, output: output, derived: loaded != nil)
            // -q: the summary line only, not the inventory of devices and handles.
            print(display.quiet ? String(report.prefix { $0 != "\n" }) : report)
        }
        if summary.lossRecordCount > 0 { throw ExitCode(3) }
    }

    /// The summary: totals, then per device its family and per handle its characteristic and count.
    static func report(
        _ inventory: CaptureInventory, summary: RecordingSummary, output: String, derived: Bool
    ) -> String {
        var lines: [String] = []
        lines.append(
            "Imported \(summary.replayedNotifications) values of \(inventory.devices.count) device(s) "
                + "from \(inventory.files.count) file(s) (\(inventory.packetCount) packets) into \(output): "
                + "\(summary.messageCount) messages on \(summary.streamCount) streams"
                + (derived ? ", \(summary.derivedCount) derived values" : "")
                + (summary.stoppedEarly ? " (stopped by signal)." : "."))
        for device in inventory.devices {
            let family = device.family?.rawValue ?? RawDeviceRecorder.unknownFamily.rawValue
            let evidence = device.family == nil ? "no known family: raw streams" : "family by \(device.familyEvidence)"
            lines.append(
                "  \(family) \(TerminalText.escaped(device.identifier))  \(device.peer)  \(evidence), "
                    + "\(device.connections.count) connection(s)")
            var rows: [[String]] = []
            for handle in device.valueCounts.keys.sorted() {
                let uuid = device.handles[handle].map(\.description) ?? "?"
                let source = device.handleSources[handle] ?? "unknown: recorded by handle"
                let kinds = (device.valueKinds[handle] ?? []).map(\.rawValue).sorted().joined(separator: "+")
                rows.append([
                    "    " + "0x" + String(format: "%04x", handle), uuid, source, kinds,
                    InfoReport.grouped(device.valueCounts[handle] ?? 0),
                ])
            }
            lines.append(contentsOf: align(rows))
        }
        if inventory.otherDeviceCount > 0 {
            lines.append(
                "  \(inventory.otherDeviceCount) other device(s) only advertised or connected (not recorded)"
                    + (inventory.advertisersCountedOnly > 0
                        ? "; \(inventory.advertisersCountedOnly) of them counted by address only (more than "
                            + "\(InfoReport.grouped(CaptureInventory.advertiserLimit)) advertised at once)."
                        : "."))
        }
        let withoutAdvertisements = inventory.devices.filter(\.advertisementsLetGo).count
        if withoutAdvertisements > 0 {
            lines.append(
                "  \(withoutAdvertisements) device(s) recorded without the advertisements they sent before "
                    + "connecting (more than \(InfoReport.grouped(CaptureInventory.advertiserLimit)) devices "
                    + "advertised meanwhile): their family was looked for without them.")
        }
        if summary.lossRecordCount > 0 {
            lines.append(
                "Loss: \(summary.lossCount) elements in \(summary.lossRecordCount) loss record(s); "
                    + "see `tlm info \(output)`.")
        }
        return lines.joined(separator: "\n")
    }

    /// Rows with their columns padded to a common width (the last aligned right).
    private static func align(_ rows: [[String]]) -> [String] {
        guard let count = rows.first?.count else { return [] }
        let widths = Columns.widths(rows)
        return rows.map { Columns.line($0, widths, rightAligned: [count - 1]) }
    }
}
