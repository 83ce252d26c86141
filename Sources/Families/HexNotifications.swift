public import Devices
import Foundation
import Recording

/// Notifications given as hex text, decoded by a family's decoder: what
/// `tlm decode` does, as data (the values and the failures, in order).
///
/// Every notification goes through one decoder, so fragmented messages
/// (Jacquard) reassemble; a notification that does not decode is a
/// ``Failure`` and the next ones still decode.
///
/// ```swift
/// let outcomes = try HexNotifications.decode(
///     ["09 00 00 80 3F", "0448000000"], family: .diot, characteristic: CharacteristicUUID("D001")!)
/// for case .value(let value) in outcomes { print(value) }
/// ```
public enum HexNotifications {
    /// One notification's result: a value it decoded to (a notification
    /// may give none, one or several), or its failure.
    public enum Outcome: Sendable {
        /// A decoded value (a family's typed value, `Encodable`).
        case value(any Encodable & Sendable)
        /// A notification that did not decode.
        case failure(Failure)
    }

    /// A notification that did not decode: what is wrong, which one (from
    /// 0, in the order given) and its bytes as hex.
    public struct Failure: Encodable, Hashable, Sendable {
        /// What the family's decoder says is wrong.
        public let error: String
        /// The notification's position among those given, from 0.
        public let notification: Int
        /// Its bytes, as lowercase hex without separators.
        public let bytes: String

        /// A failure of notification `notification` (bytes `bytes`, in hex): `error`.
        public init(error: String, notification: Int, bytes: String) {
            self.error = error
            self.notification = notification
            self.bytes = bytes
        }
    }

    /// The largest file ``text(ofFile:)`` reads: 64 MiB of hex lines.
    public static let maximumFileSize = 64 << 20

    /// Parses hex bytes, ignoring spaces, tabs, `:` and `-` between them and
    /// a leading `0x`; `nil` for text that is not an even number of hex digits.
    public static func parse(_ text: String) -> [UInt8]? {
        var digits = text.filter { !" \t:-".contains($0) }
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits.removeFirst(2) }
        guard digits.count % 2 == 0, digits.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    /// The notification lines of a text: one per line, blank lines and
    /// lines starting with `#` left out.
    public static func lines(in text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("#") }
    }

    /// Decodes notifications given as hex with one decoder of `family`.
    ///
    /// Every line is parsed before any is decoded, so a line that is not
    /// hex decodes nothing.
    ///
    /// - Parameters:
    ///   - hex: The notifications, one hex string each (see ``parse(_:)``).
    ///   - family: The device family.
    ///   - characteristic: The characteristic that notified.
    ///   - propertyTable: Comodule: a property table file (JSON) instead of the default table.
    ///   - registry: The families known.
    /// - Returns: The values and failures, in the order of the notifications.
    /// - Throws: ``HexNotificationError`` for a line that is not hex, a
    ///   family `registry` does not know, or options its decoder refuses.
    public static func decode(
        _ hex: [String], family: DeviceFamily, characteristic: CharacteristicUUID, propertyTable: String? = nil,
        registry: FamilyRegistry = .builtIn
    ) throws(HexNotificationError) -> [Outcome] {
        var outcomes: [Outcome] = []
        try decode(
            hex, family: family, characteristic: characteristic, propertyTable: propertyTable, registry: registry
        ) { outcomes.append($0) }
        return outcomes
    }

    /// Decodes notifications given as hex, `hex` first and then the lines
    /// of `text` (``lines(in:)``'s rule), handing each outcome to `emit` as
    /// it comes: memory stays that of the text, however many lines it has.
    ///
    /// Every line is parsed before any is decoded, so a line that is not
    /// hex decodes nothing; notifications are numbered across both, from 0.
    ///
    /// - Parameters:
    ///   - hex: Notifications given one hex string each.
    ///   - text: Further notifications, a text of hex lines (a file's bytes).
    ///   - family: The device family.
    ///   - characteristic: The characteristic that notified.
    ///   - propertyTable: Comodule: a property table file (JSON) instead of the default table.
    ///   - registry: The families known.
    ///   - emit: Called with each value and failure, in order.
    /// - Throws: As ``decode(_:family:characteristic:propertyTable:registry:)``.
    public static func decode(
        _ hex: [String], text: [UInt8] = [], family: DeviceFamily, characteristic: CharacteristicUUID,
        propertyTable: String? = nil, registry: FamilyRegistry = .builtIn, emit: (Outcome) -> Void
    ) throws(HexNotificationError) {
        func forEachNotification(
            _ body: (Int, String) throws(HexNotificationError) -> Void
        )
            throws(HexNotificationError)
        {
            for (index, line) in hex.enumerated() { try body(index, line) }
            var index = hex.count
            var start = 0
            while start < text.count {
                var end = start
                while end < text.count, text[end] != 0x0A, text[end] != 0x0D { end += 1 }
                let line = String(decoding: text[start..<end], as: UTF8.self)
                if !line.trimmingCharacters(in: .whitespaces).isEmpty, !line.hasPrefix("#") {
                    try body(index, line)
                    index += 1
                }
                start = end + 1
            }
        }
        try forEachNotification { (index, line) throws(HexNotificationError) in
            guard parse(line) != nil else {
                throw HexNotificationError("notification \(index) is not hex: '\(line)'")
            }
        }
        guard let descriptor = registry[family] else {
            throw HexNotificationError("no device family '\(family)' in this build")
        }
        var options = FamilyOptions()
        if let propertyTable { options.settings["property_table"] = propertyTable }
        var decoder: any FamilyDecoder
        do {
            decoder = try descriptor.makeDecoder(options: options)
        } catch {
            throw HexNotificationError(propertyTable.map { "\($0): \(error)" } ?? "\(error)")
        }
        try forEachNotification { (index, line) throws(HexNotificationError) in
            let bytes = parse(line) ?? []
            let notification = RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: 0)
            do {
                try decoder.decode(notification) { emit(.value($0)) }
            } catch {
                let failure = Failure(error: String(describing: error), notification: index, bytes: Devices.hex(bytes))
                emit(.failure(failure))
            }
        }
    }

    /// The bytes of a file of hex lines, at most ``maximumFileSize``; `-`
    /// reads standard input, to the same limit.
    ///
    /// - Throws: ``HexNotificationError`` when the file cannot be read, is
    ///   not regular, or is larger than the limit.
    public static func text(ofFile path: String) throws(HexNotificationError) -> [UInt8] {
        if path == "-" {
            let data = FileHandle.standardInput.readData(ofLength: maximumFileSize + 1)
            guard data.count <= maximumFileSize else {
                throw HexNotificationError(
                    "standard input holds more than \(maximumFileSize >> 20) MiB of notifications")
            }
            return [UInt8](data)
        }
        do {
            return try RegularFile.read(path, limit: maximumFileSize)
        } catch {
            throw HexNotificationError("cannot read \(path): \(error.message)")
        }
    }
}
