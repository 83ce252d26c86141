/// A GATT characteristic (or service) UUID.
///
/// Stored as 128 bits. 16-bit UUIDs are expanded on the Bluetooth base UUID
/// `0000xxxx-0000-1000-8000-00805F9B34FB`. The description is the canonical
/// lower-case form; topics use its 32 hex digits after `c_`
/// (`/diot/<device>/raw/c_0000d00100001000800000805f9b34fb`).
///
/// ```swift
/// let d001 = CharacteristicUUID(short: 0xD001)
/// print(d001)            // 0000d001-0000-1000-8000-00805f9b34fb
/// print(d001.shortValue) // Optional(53249)
/// ```
public struct CharacteristicUUID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The most significant 64 bits.
    public let high: UInt64
    /// The least significant 64 bits.
    public let low: UInt64

    /// The low half of the Bluetooth base UUID (`-8000-00805F9B34FB`).
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB
    /// The high half of the Bluetooth base UUID with the 16/32-bit slot zeroed.
    static let baseHigh: UInt64 = 0x0000_0000_0000_1000

    /// Creates a UUID from its two 64-bit halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Creates a UUID from a 16-bit assigned number on the Bluetooth base UUID.
    ///
    /// - Parameter short: The 16-bit UUID, for example `0x2A19` (battery level).
    public init(short: UInt16) {
        self.init(high: UInt64(short) << 32 | Self.baseHigh, low: Self.baseLow)
    }

    /// Parses a UUID in the 8-4-4-4-12 form, or a 4-hex-digit short form.
    ///
    /// Case is ignored. Returns `nil` for anything else.
    public init?(_ text: String) {
        let hex = text.filter { $0 != "-" }
        if hex.count == 4, text.count == 4, let short = UInt16(hex, radix: 16) {
            self.init(short: short)
            return
        }
        let groups = text.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
        guard groups == [8, 4, 4, 4, 12], hex.count == 32,
            hex.allSatisfy(\.isHexDigit),
            let high = UInt64(hex.prefix(16), radix: 16),
            let low = UInt64(hex.suffix(16), radix: 16)
        else { return nil }
        self.init(high: high, low: low)
    }

    /// The 16-bit assigned number, when this UUID is on the Bluetooth base UUID.
    public var shortValue: UInt16? {
        guard low == Self.baseLow, high & 0xFFFF_0000_FFFF_FFFF == Self.baseHigh,
            high >> 48 == 0
        else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// Whether this is a number the Bluetooth SIG assigns for GATT on the
    /// base UUID: a service (`0x18xx`), a unit, a declaration, a descriptor
    /// or a characteristic (`0x2700`–`0x2FFF`: Battery Level `0x2A19`, the
    /// Device Information strings `0x2A24`–`0x2A29`, …), or a member
    /// company's service (`0xFC00`–`0xFEFF`). Any device may have these, so
    /// they are never evidence of a family; numbers a vendor picked on the
    /// base UUID outside these ranges (DIoT's `0xD001`) are not standard.
    public var isBluetoothSIGAssigned: Bool {
        guard let short = shortValue else { return false }
        return (0x1800...0x18FF).contains(short) || (0x2700...0x2FFF).contains(short)
            || (0xFC00...0xFEFF).contains(short)
    }

    /// The canonical lower-case 8-4-4-4-12 form.
    public var description: String {
        // Written byte by byte into the string's storage: every raw message
        // written names its characteristic, so this is on the recording path.
        String(unsafeUninitializedCapacity: 36) { buffer in
            let digits: StaticString = "0123456789abcdef"
            var at = 0
            func put(_ value: UInt64, from shift: Int, count: Int) {
                for index in 0..<count {
                    let nibble = Int((value >> UInt64(shift - 4 * index)) & 0xF)
                    buffer[at] = digits.utf8Start[nibble]
                    at += 1
                }
            }
            func dash() {
                buffer[at] = UInt8(ascii: "-")
                at += 1
            }
            put(high, from: 60, count: 8)
            dash()
            put(high, from: 28, count: 4)
            dash()
            put(high, from: 12, count: 4)
            dash()
            put(low, from: 60, count: 4)
            dash()
            put(low, from: 44, count: 12)
            return at
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}
