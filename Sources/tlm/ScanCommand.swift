import ArgumentParser
import Capture
import Devices
import Families
import Foundation
import Quantities

/// `tlm scan`: lists nearby BLE devices through BlueZ.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "List nearby BLE devices: family, name, address, signal strength.",
        discussion: """
            Discovers LE devices through BlueZ on the system bus (DBUS_SYSTEM_BUS_ADDRESS overrides its \
            address) and prints those heard, strongest first. The family \
            (\(FamilyRegistry.builtIn.namesList)) comes from the advertisement, its manufacturer data or \
            its service UUIDs; "-" when it cannot be told. Without BlueZ or an adapter it says so and \
            exits with status 1.

            Examples:
              tlm scan
              tlm scan --duration 10s --family diot
              tlm scan --format json
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json
    }

    @Option(help: "How long to scan, e.g. 3s.")
    var duration = DurationArgument(argument: "5s")!

    @Option(name: .customLong("family"), help: "Only devices of this family (repeatable).")
    var families: [FamilyArgument] = []

    @Flag(help: "List every device heard, also those of no known family.")
    var all = false

    @Option(help: "Output format: table or json.")
    var format: Format = .table

    func validate() throws {
        guard duration.duration > .zero else { throw ValidationError("--duration must be positive") }
        if all, !families.isEmpty { throw ValidationError("--all and --family exclude each other") }
    }

    @OptionGroup var display: OutputOptions

    func run() async throws {
        let central: BluetoothCentral
        do {
            central = try BluetoothCentral.systemBus()
        } catch {
            throw CLIError(error.message)
        }
        defer { central.close() }
        let found: [DiscoveredDevice]
        do {
            found = try await central.scan(for: duration.duration)
        } catch {
            throw CLIError(error.message)
        }
        let devices = DiscoveredDevice.listed(found, families: Set(families.map(\.family)), all: all)
        switch format {
        case .json:
            try JSONOutput.print(ScanReport(devices), command: "scan")
        case .table:
            guard !devices.isEmpty else {
                print(
                    "No \(all ? "" : "known ")devices heard in \(duration)"
                        + (all ? "." : " (--all lists devices of any family)."))
                return
            }
            let rows = devices.map { device in
                [
                    device.family?.rawValue ?? "-", TerminalText.escaped(device.name ?? "-"), device.address,
                    device.rssi.map { "\($0) dBm" } ?? "-",
                ]
            }
            let header = ["FAMILY", "NAME", "ADDRESS", "RSSI"]
            // The last column is not padded.
            let widths = Columns.widths([header] + rows).dropLast()
            for row in [header] + rows { print(Columns.line(row, Array(widths))) }
        }
    }
}
