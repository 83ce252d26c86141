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

    /// The largest `--file` read: 64 MiB of hex lines.
    static let maximumFileSize = 64 << 20

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
        let uuid = CharacteristicUUID(characteristic)!
        var lines = notifications
        if let file {
            let text: String
            if file == "-" {
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else {
                // A regular file only: a FIFO would block and /dev/zero never end.
                do {
                    text = String(decoding: try RegularFile.read(file, limit: Self.maximumFileSize), as: UTF8.self)
                } catch {
                    throw CLIError("cannot read \(file): \(error.message)")
                }
            }
            lines += text.split(whereSeparator: \.isNewline).map(String.init)
                .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("#") }
        }
        var packets: [[UInt8]] = []
        for (index, line) in lines.enumerated() {
            guard let bytes = Self.parseHex(line) else {
                throw CLIError("notification \(index) is not hex: '\(line)'")
            }
            packets.append(bytes)
        }
        guard let descriptor = FamilyRegistry.builtIn[family.family] else {
            throw CLIError("no device family '\(family.family)' in this build")
        }
        var options = FamilyOptions()
        if let propertyTable { options.settings["property_table"] = propertyTable }
        let decoder: any FamilyDecoder
        do {
            decoder = try descriptor.makeDecoder(options: options)
        } catch {
            throw CLIError(propertyTable.map { "\($0): \(error)" } ?? "\(error)")
        }
        if decode(with: decoder, uuid, packets) > 0 { throw ExitCode(3) }
    }

    /// Decodes every packet with one decoder, printing a JSON line per value or error.
    func decode(with decoder: any FamilyDecoder, _ uuid: CharacteristicUUID, _ packets: [[UInt8]]) -> Int {
        var decoder = decoder
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        var failures = 0
        for (index, bytes) in packets.enumerated() {
            let notification = RawNotification(characteristic: uuid, bytes: bytes, receiveTime: 0)
            do {
                try decoder.decode(notification) { value in
                    if let data = try? encoder.encode(value) { print(String(decoding: data, as: UTF8.self)) }
                }
            } catch {
                failures += 1
                let report = DecodeFailure(error: error.description, notification: index, bytes: hex(bytes))
                if let data = try? encoder.encode(report) { print(String(decoding: data, as: UTF8.self)) }
            }
        }
        return failures
    }

    /// Parses hex bytes, ignoring spaces, ':' and '-' between them; `nil` if not hex.
    static func parseHex(_ text: String) -> [UInt8]? {
        var digits = text.filter { !" \t:-".contains($0) }
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits.removeFirst(2) }
        guard digits.count % 2 == 0, digits.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            bytes.append(UInt8(digits[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}

/// A notification that did not decode, as `tlm decode` prints it.
struct DecodeFailure: Encodable {
    let error: String
    let notification: Int
    let bytes: String
}
