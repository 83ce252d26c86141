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
        var lines = notifications
        do {
            if let file {
                lines +=
                    file == "-"
                    ? HexNotifications.lines(
                        in: String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self))
                    : try HexNotifications.lines(ofFile: file)
            }
            let outcomes = try HexNotifications.decode(
                lines, family: family.family, characteristic: CharacteristicUUID(characteristic)!,
                propertyTable: propertyTable)
            if print(outcomes) > 0 { throw ExitCode(3) }
        } catch let error as HexNotificationError {
            throw CLIError(error.message)
        }
    }

    /// Prints a JSON line per value or failure; returns the number of failures.
    private func print(_ outcomes: [HexNotifications.Outcome]) -> Int {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        var failures = 0
        for outcome in outcomes {
            let data: Data?
            switch outcome {
            case .value(let value):
                data = try? encoder.encode(value)
            case .failure(let failure):
                failures += 1
                data = try? encoder.encode(failure)
            }
            if let data { Swift.print(String(decoding: data, as: UTF8.self)) }
        }
        return failures
    }
}
