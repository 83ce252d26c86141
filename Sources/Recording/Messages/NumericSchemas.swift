package import MCAP
package import ROS2

/// Where the numeric value sits in the messages of numeric streams.
///
/// The rule is part of the recording format and knows no family: a schema is
/// numeric when it has a top-level `float64 value` field preceded only by
/// fixed-size scalar fields, and the value is that little-endian `float64`,
/// at the offset the CDR layout gives it (each scalar aligned to its size,
/// relative to the body after the 4-byte encapsulation header). So a
/// family's schema (`tlm/msg/DiotSample`: four `uint8`, a `uint32`, then the
/// value at payload offset 12), a pipeline's `tlm/msg/DerivedValue` (the
/// value first, offset 4) and any new family's schema are read alike.
/// `recover` uses it to rebuild per-chunk statistics from segment bytes
/// alone, and aggregates to decode only the value.
package enum NumericSchemas {
    /// The payload offset (CDR header included) of the numeric value of
    /// messages of `definition`, or `nil` when the schema is not numeric.
    package static func valueOffset(_ definition: ROS2MessageDefinition) -> Int? {
        var offset = 0
        for field in definition.fields {
            guard field.arrayLength == nil, let size = field.type.fixedSize else { return nil }
            let alignment = field.type.alignment
            offset = (offset + alignment - 1) / alignment * alignment
            if field.name == "value" { return field.type == .float64 ? 4 + offset : nil }
            offset += size
        }
        return nil
    }

    /// The payload offset of the numeric value of messages of the schema
    /// whose `ros2msg` text is `text`, or `nil` when it is not numeric (or
    /// does not parse).
    package static func valueOffset(schemaText text: String) -> Int? {
        (try? ROS2MessageDefinition(parsing: text)).flatMap(valueOffset)
    }

    /// The payload offset of the numeric value of a channel's messages, or
    /// `nil` when the channel is not numeric: every channel says so in its
    /// metadata (`numeric: true` or `false`); for those of older recordings,
    /// which do not, the schema decides.
    package static func valueOffset(channel: MCAPRecord.Channel, schema: MCAPRecord.Schema?) -> Int? {
        guard let schema else { return nil }
        if let flag = channel.metadata.last(where: { $0.key == "numeric" }), flag.value != "true" { return nil }
        return valueOffset(schemaText: String(decoding: schema.data, as: UTF8.self))
    }

    /// `value(at:payload:)` of a payload lent by its chunk.
    package static func value(at offset: Int, payload: UnsafeRawBufferPointer) -> Double? {
        guard offset >= 0, payload.count >= offset + 8 else { return nil }
        return Double(bitPattern: UInt64(littleEndian: payload.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
    }

    /// The numeric value at `offset` of a payload, or `nil` when the payload is too short.
    package static func value(at offset: Int, payload: [UInt8]) -> Double? {
        guard offset >= 0, payload.count >= offset + 8 else { return nil }
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(payload[offset + index]) << (8 * index) }
        return Double(bitPattern: bits)
    }
}

extension ROS2MessageDefinition.Primitive {
    /// The size in bytes of a scalar of this type in CDR; `nil` for strings.
    package var fixedSize: Int? {
        switch self {
        case .bool, .byte, .char, .int8, .uint8: 1
        case .int16, .uint16: 2
        case .int32, .uint32, .float32: 4
        case .int64, .uint64, .float64, .time: 8
        case .string: nil
        }
    }

    /// The alignment in CDR of a scalar of this type: its size, but 4 for a
    /// `builtin_interfaces/Time` (two 32-bit fields).
    package var alignment: Int {
        self == .time ? 4 : fixedSize ?? 4
    }
}
