public import Devices

/// The recorded form of one DIoT data-channel record: schema
/// `tlm/msg/DiotSample` (`ros2msg`, CDR-encoded), one stream per feature
/// (`/diot/<device>/<feature>`, for example `/diot/9F3A0C11/acc_x`).
///
/// The message keeps the record's four raw bytes next to the numeric view, so
/// both SDK readings of `int` (iOS `UInt32`, Android `Int32`) stay derivable.
public enum DiotSampleMessage {
    /// The `value_type` field's codes.
    public static func valueTypeCode(_ type: DiotValueType?) -> UInt8 {
        switch type {
        case .float: 0
        case .int: 1
        case .bool: 2
        case .date: 3
        case nil: 255
        }
    }

    /// The schema.
    public static let schema = MessageSchema(name: "tlm/msg/DiotSample", text: """
        # One DIoT data-channel record (5 bytes on the wire: feature code, 4 value bytes).
        uint8 channel
        uint8 index
        uint8 feature_code
        uint8 value_type
        uint32 raw
        float64 value
        """)

    /// The encoded size: 4-byte CDR header, 4 bytes, `uint32`, `float64`.
    public static let encodedSize = 20

    /// Encodes a record into `buffer`, which must hold ``encodedSize`` bytes.
    @inlinable
    public static func encode(_ record: DiotRecord, into buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count >= encodedSize)
        buffer.storeBytes(of: UInt32(0x0000_0100).littleEndian, toByteOffset: 0, as: UInt32.self) // 00 01 00 00
        buffer[4] = record.channel.rawValue
        buffer[5] = UInt8(truncatingIfNeeded: record.index)
        buffer[6] = record.feature.rawValue
        buffer[7] = valueTypeCode(record.feature.valueType)
        buffer.storeBytes(of: record.raw.littleEndian, toByteOffset: 8, as: UInt32.self)
        buffer.storeBytes(of: record.value.numericValue.bitPattern.littleEndian, toByteOffset: 12, as: UInt64.self)
    }

    /// Encodes a record as a new array.
    public static func encode(_ record: DiotRecord) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: encodedSize)
        bytes.withUnsafeMutableBytes { encode(record, into: $0) }
        return bytes
    }
}
