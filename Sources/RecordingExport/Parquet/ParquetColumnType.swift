import ROS2

/// The type of a Parquet column's values, as this writer makes them: each
/// maps to a physical type and a logical type (written both as the logical
/// type and, where one exists, as the legacy converted type).
enum ParquetColumnType: Sendable, Hashable {
    /// BOOLEAN.
    case boolean
    /// INT32 with INTEGER(bitWidth, signed): `int8`…`int32`, `uint8`…`uint32`.
    case int32(bitWidth: Int, signed: Bool)
    /// INT64 with INTEGER(64, signed): `int64`, `uint64` (UINT_64).
    case int64(signed: Bool)
    /// FLOAT.
    case float
    /// DOUBLE.
    case double
    /// BYTE_ARRAY with STRING (UTF-8).
    case string
    /// BYTE_ARRAY without a logical type.
    case binary
    /// INT64 with TIMESTAMP(MICROS, isAdjustedToUTC = true) (converted type
    /// TIMESTAMP_MICROS): what every engine reads as a timestamp, Spark
    /// with its default settings included (it refuses NANOS).
    case timestampMicroseconds

    /// Parquet's physical `Type` enum value.
    var physicalType: Int32 {
        switch self {
        case .boolean: 0
        case .int32: 1
        case .int64, .timestampMicroseconds: 2
        case .float: 4
        case .double: 5
        case .string, .binary: 6
        }
    }

    /// Parquet's `ConvertedType` enum value, where the type has one.
    var convertedType: Int32? {
        switch self {
        case .string: 0  // UTF8
        case .int32(let bits, let signed):
            switch bits {
            case 8: signed ? 15 : 11
            case 16: signed ? 16 : 12
            default: signed ? 17 : 13
            }
        case .int64(let signed): signed ? 18 : 14
        case .timestampMicroseconds: 10  // TIMESTAMP_MICROS
        case .boolean, .float, .double, .binary: nil
        }
    }

    /// The size of one PLAIN-encoded value, `nil` for variable-length values and booleans (bits).
    var fixedSize: Int? {
        switch self {
        case .int32, .float: 4
        case .int64, .double, .timestampMicroseconds: 8
        case .boolean, .string, .binary: nil
        }
    }

    /// Whether min/max statistics compare as unsigned integers.
    var isUnsigned: Bool {
        switch self {
        case .int32(_, let signed): !signed
        case .int64(let signed): !signed
        default: false
        }
    }

    /// The column type of a `ros2msg` primitive.
    init(_ primitive: ROS2MessageDefinition.Primitive) {
        switch primitive {
        case .bool: self = .boolean
        case .byte, .char, .uint8: self = .int32(bitWidth: 8, signed: false)
        case .int8: self = .int32(bitWidth: 8, signed: true)
        case .int16: self = .int32(bitWidth: 16, signed: true)
        case .uint16: self = .int32(bitWidth: 16, signed: false)
        case .int32: self = .int32(bitWidth: 32, signed: true)
        case .uint32: self = .int32(bitWidth: 32, signed: false)
        case .int64: self = .int64(signed: true)
        case .uint64: self = .int64(signed: false)
        case .float32: self = .float
        case .float64: self = .double
        case .string: self = .string
        // Exact nanoseconds since the epoch: a NANOS timestamp would make Spark refuse the file.
        case .time: self = .int64(signed: true)
        }
    }

    /// Writes the schema element's logical type field (field 10), where the type has one.
    func writeLogicalType(_ thrift: inout ThriftCompactWriter) {
        switch self {
        case .string:
            thrift.beginStruct(10)
            thrift.emptyStruct(1)  // STRING
            thrift.endStruct()
        case .int32(let bits, let signed):
            writeInteger(&thrift, bits: bits, signed: signed)
        case .int64(let signed):
            writeInteger(&thrift, bits: 64, signed: signed)
        case .timestampMicroseconds:
            thrift.beginStruct(10)
            thrift.beginStruct(8)  // TIMESTAMP
            thrift.bool(1, true)  // isAdjustedToUTC
            thrift.beginStruct(2)  // unit
            thrift.emptyStruct(2)  // MICROS
            thrift.endStruct()
            thrift.endStruct()
            thrift.endStruct()
        case .boolean, .float, .double, .binary:
            break
        }
    }

    private func writeInteger(_ thrift: inout ThriftCompactWriter, bits: Int, signed: Bool) {
        thrift.beginStruct(10)
        thrift.beginStruct(10)  // INTEGER
        thrift.i8(1, Int8(bits))
        thrift.bool(2, signed)
        thrift.endStruct()
        thrift.endStruct()
    }
}
