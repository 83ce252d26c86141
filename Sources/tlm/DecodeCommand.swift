import ArgumentParser
import Devices
import Families
import Foundation
import Recording

/// `tlm decode`: what does this packet mean?
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode notifications given as hex and print each value or error as one JSON object per line.",
        discussion: """
            Consecutive notifications go through one decoder, so fragmented messages (Jacquard) reassemble. \
            Field names are those of the typed values. A notification that does not decode prints \
            {"error": ..., "notification": N, "bytes": ...}. Exit status: 0 when everything decoded, \
            3 when a notification was malformed, 1 on bad arguments.

            Examples:
              tlm decode --family diot --characteristic D001 "09 00 00 80 3F 0A 00 00 00 00"
              tlm decode --family diot --characteristic 0000d003-0000-1000-8000-00805f9b34fb 0448000000 00
              tlm decode --family diot --characteristic D001 --file packets.txt
              tlm decode --family jacquard --characteristic d2f2b8d1-d165-445c-b0e1-2d6b642ec57b \\
                C00D0800101718 00CA070408321002
              tlm decode --family comodule --characteristic c0de0002-0000-4000-8000-00805f9b34fb 01010002E803
            """
    )

    @Option(help: "The device family: \(FamilyRegistry.builtIn.namesList).")
    var family: FamilyArgument

    @Option(help: "The characteristic that notified: a UUID or a 16-bit short form such as D001.")
    var characteristic: String

    @Option(
        help: "Read one hex notification per line from this file ('-' for standard input).",
        completion: .file())
    var file: String?

    @Option(help: "Comodule: a property table file (JSON) instead of the default table.", completion: .file())
    var propertyTable: String?

    @Argument(help: "Notifications as hex, one argument each; spaces, ':' and '-' between bytes are ignored.")
    var notifications: [String] = []

    func validate() throws {
        guard CharacteristicUUID(characteristic) != nil else {
            throw ValidationError(
                "'\(characteristic)' is not a characteristic UUID (e.g. D001 or 0000d001-0000-1000-8000-00805f9b34fb)")
        }
        if notifications.isEmpty, file == nil {
            throw ValidationError("give notifications as hex arguments or --file")
        }
    }

    @OptionGroup var display: OutputOptions

    func run() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        var failures = 0
        do throws(HexNotificationError) {
            var text: [UInt8] = []
            if let file { text = try HexNotifications.text(ofFile: file) }
            try HexNotifications.decode(
                notifications, text: text, family: family.family,
                characteristic: CharacteristicUUID(characteristic)!, propertyTable: propertyTable
            ) { outcome in
                if case .failure = outcome { failures += 1 }
                print(outcome, encoder: encoder)
            }
        } catch {
            throw CLIError(error.message)
        }
        if failures > 0 { throw ExitCode(3) }
    }

    /// Prints a value or a failure as a JSON line.
    private func print(_ outcome: HexNotifications.Outcome, encoder: JSONEncoder) {
        let data: Data?
        switch outcome {
        case .value(let value): data = try? encoder.encode(value)
        case .failure(let failure): data = try? encoder.encode(failure)
        }
        if let data { Swift.print(String(decoding: data, as: UTF8.self)) }
    }
}
