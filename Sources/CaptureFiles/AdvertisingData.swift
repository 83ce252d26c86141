import ByteCursor
public import Devices

/// What an advertisement (or scan response) says, from its AD structures:
/// manufacturer data by company, service UUIDs, the name.
public struct AdvertisingData: Sendable, Hashable {
    /// Manufacturer data by company id, without the company id (as BlueZ gives it).
    public var manufacturerData: [UInt16: [UInt8]] = [:]
    /// Advertised service UUIDs (16-, 32- and 128-bit lists).
    public var serviceUUIDs: [CharacteristicUUID] = []
    /// The (complete or shortened) local name.
    public var name: String?

    /// Nothing advertised.
    public init() {}

    /// Parses AD structures; a structure running past the end ends the parse.
    public init(_ bytes: ArraySlice<UInt8>) {
        var at = bytes.startIndex
        while at < bytes.endIndex {
            let length = Int(bytes[at])
            guard length > 0, at + 1 + length <= bytes.endIndex else { break }
            let type = bytes[at + 1]
            let value = bytes[(at + 2)..<(at + 1 + length)]
            switch type {
            case 0x02, 0x03:
                var uuids = ByteCursor(value)
                while let short = try? uuids.read(UInt16.self) {
                    serviceUUIDs.append(CharacteristicUUID(short: short))
                }
            case 0x04, 0x05:
                var uuids = ByteCursor(value)
                while let short = try? uuids.read(UInt32.self) {
                    serviceUUIDs.append(
                        CharacteristicUUID(high: UInt64(short) << 32 | 0x1000, low: 0x8000_0080_5F9B_34FB))
                }
            case 0x06, 0x07:
                var index = value.startIndex
                while index + 16 <= value.endIndex {
                    serviceUUIDs.append(Self.uuid128(value[index..<(index + 16)]))
                    index += 16
                }
            case 0x08, 0x09:
                name = String(decoding: value, as: UTF8.self)
            case 0xFF:
                guard let company = ByteCursor(value).peek(UInt16.self) else { break }
                manufacturerData[company] = Array(value.dropFirst(2))
            default:
                break
            }
            at += 1 + length
        }
    }

    /// Adds what `other` says (a scan response to its advertisement).
    mutating func merge(_ other: AdvertisingData) {
        manufacturerData.merge(other.manufacturerData) { _, new in new }
        for uuid in other.serviceUUIDs where !serviceUUIDs.contains(uuid) { serviceUUIDs.append(uuid) }
        if let name = other.name { self.name = name }
    }

    /// A 128-bit UUID from its 16 little-endian bytes.
    static func uuid128(_ bytes: ArraySlice<UInt8>) -> CharacteristicUUID {
        // Little-endian: the low half first.
        let cursor = ByteCursor(bytes)
        return CharacteristicUUID(high: cursor.peek(UInt64.self, at: 8) ?? 0, low: cursor.peek(UInt64.self) ?? 0)
    }

    /// A 16- or 128-bit UUID from its little-endian bytes, or `nil` for another length.
    static func uuid(_ bytes: ArraySlice<UInt8>) -> CharacteristicUUID? {
        switch bytes.count {
        case 2: ByteCursor(bytes).peek(UInt16.self).map { CharacteristicUUID(short: $0) }
        case 16: uuid128(bytes)
        default: nil
        }
    }
}
