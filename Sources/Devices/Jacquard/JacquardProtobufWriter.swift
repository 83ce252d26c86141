/// A protobuf wire-format writer: builds the messages the simulator sends
/// and the tests decode.
///
/// Signed `int32` values are written the protobuf way, as the 64-bit
/// two's complement varint (10 bytes for a negative value).
///
/// ```swift
/// var inner = JacquardProtobufWriter()
/// inner.writeVarintField(1, 50)
/// var message = JacquardProtobufWriter()
/// message.writeVarintField(1, 0)
/// message.writeMessageField(121, inner)
/// print(message.bytes) // [8, 0, 202, 7, 2, 8, 50]
/// ```
public struct JacquardProtobufWriter: Sendable, Hashable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    /// Creates an empty writer.
    public init() {
        bytes = []
    }

    /// The varint encoding of a value.
    ///
    /// - Parameter value: The value.
    /// - Returns: 1…10 bytes, for example `[0xC0, 0x01]` for 192.
    public static func varint(_ value: UInt64) -> [UInt8] {
        var writer = JacquardProtobufWriter()
        writer.writeVarint(value)
        return writer.bytes
    }

    /// Appends a varint.
    ///
    /// - Parameter value: The value.
    public mutating func writeVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Appends a tag.
    ///
    /// - Parameters:
    ///   - fieldNumber: 1…2²⁹ − 1 (checked with `precondition`).
    ///   - wireType: The wire type.
    public mutating func writeTag(_ fieldNumber: Int, _ wireType: JacquardWireType) {
        precondition(fieldNumber > 0 && fieldNumber <= 0x1FFF_FFFF, "protobuf field numbers are 1…2^29-1")
        writeVarint(UInt64(fieldNumber) << 3 | UInt64(wireType.rawValue))
    }

    /// Appends a varint field.
    ///
    /// - Parameters:
    ///   - fieldNumber: The field number.
    ///   - value: The value.
    public mutating func writeVarintField(_ fieldNumber: Int, _ value: UInt64) {
        writeTag(fieldNumber, .varint)
        writeVarint(value)
    }

    /// Appends an `int32` or enum field (negative values as 10-byte varints).
    ///
    /// - Parameters:
    ///   - fieldNumber: The field number.
    ///   - value: The value.
    public mutating func writeInt32Field(_ fieldNumber: Int, _ value: Int32) {
        writeVarintField(fieldNumber, UInt64(bitPattern: Int64(value)))
    }

    /// Appends a `bool` field.
    ///
    /// - Parameters:
    ///   - fieldNumber: The field number.
    ///   - value: The value, written as 0 or 1.
    public mutating func writeBoolField(_ fieldNumber: Int, _ value: Bool) {
        writeVarintField(fieldNumber, value ? 1 : 0)
    }

    /// Appends a `fixed32` field.
    ///
    /// - Parameters:
    ///   - fieldNumber: The field number.
    ///   - value: The value, little-endian.
    public mutating func writeFixed32Field(_ fieldNumber: Int, _ value: UInt32) {
        writeTag(fieldNumber, .fixed32)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// Appends a `fixed64` field.
    ///
    /// - Parameters:
    ///   - fieldNumber: The field number.
    ///   - value: The value, little-endian.
    public mutating func writeFixed64Field(_ fieldNumber: Int, _ value: UInt64) {
        writeTag(fieldNumber, .fixed64)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// Appends a `bytes` field.
    ///
    /// - Parameters:
    ///   - fieldNumber: The field number.
    ///   - value: The bytes.
    public mutating func writeBytesField(_ fieldNumber: Int, _ value: [UInt8]) {
        writeTag(fieldNumber, .lengthDelimited)
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Appends a `string` field, UTF-8.
    ///
    /// - Parameters:
    ///   - fieldNumber: The field number.
    ///   - value: The text.
    public mutating func writeStringField(_ fieldNumber: Int, _ value: String) {
        writeBytesField(fieldNumber, Array(value.utf8))
    }

    /// Appends an embedded message (or an extension, which is written the same way).
    ///
    /// - Parameters:
    ///   - fieldNumber: The field number.
    ///   - message: The message's writer.
    public mutating func writeMessageField(_ fieldNumber: Int, _ message: JacquardProtobufWriter) {
        writeBytesField(fieldNumber, message.bytes)
    }

    /// Appends raw bytes as they are (for hand-made or malformed messages).
    ///
    /// - Parameter raw: The bytes.
    public mutating func writeRaw(_ raw: [UInt8]) {
        bytes.append(contentsOf: raw)
    }
}
