import Devices

/// Where the numeric value sits in the messages of numeric schemas: the byte
/// offset of a little-endian `float64` in the payload (CDR header included).
/// `recover` uses it to rebuild per-chunk statistics from segment bytes alone.
enum NumericSchemas {
    static let valueOffsets: [String: Int] = [
        DiotEvent.sampleSchema.name: 12, // 4-byte header, 4 × uint8, uint32, then float64 value at body offset 8
        ComoduleFrame.rangeSchema.name: 4, // 4-byte header, then float64 value
        // A pipeline's derived streams (`Pipeline.DerivedValue.schema`, which
        // Recording cannot import): 4-byte header, then float64 value.
        "tlm/msg/DerivedValue": 4,
    ]

    /// The numeric value of a message, if its schema is numeric.
    static func value(schema: String, payload: [UInt8]) -> Double? {
        guard let offset = valueOffsets[schema], payload.count >= offset + 8 else { return nil }
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(payload[offset + index]) << (8 * index) }
        return Double(bitPattern: bits)
    }
}
