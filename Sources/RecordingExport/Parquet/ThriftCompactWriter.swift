/// Encodes Thrift structures in the compact protocol: the encoding of
/// Parquet's page headers and file footer. Only what those need: structs
/// (nested, and as list elements), `bool`, `i8`, `i32`, `i64`, `binary`
/// fields, and lists of `i32`, `binary` and structs.
///
/// Field headers carry the field id as a delta from the previous field of
/// the same struct when it is 1…15 (one byte: delta << 4 | type), else the
/// type byte followed by the id as a zigzag varint. Integers are zigzag
/// varints; `binary` is a varint length and the bytes; a `bool` field's value
/// is its type nibble (1 true, 2 false); a struct ends with a 0 byte.
///
/// ```swift
/// var thrift = ThriftCompactWriter()
/// thrift.i32(1, 4)                 // field 1: 0x15 0x08
/// thrift.beginStruct(3)            // field 3, a struct
/// thrift.bool(1, true)             //   0x11
/// thrift.endStruct()               //   0x00
/// thrift.stop()                    // end of the outer struct
/// ```
struct ThriftCompactWriter {
    /// Compact-protocol type codes.
    enum FieldType: UInt8 {
        case boolTrue = 1, boolFalse = 2, i8 = 3, i16 = 4, i32 = 5, i64 = 6, double = 7, binary = 8, list = 9
        case set = 10, map = 11, `struct` = 12
    }

    /// The encoded bytes.
    private(set) var bytes: [UInt8] = []
    /// The last field id written in the current struct.
    private var lastFieldID: Int16 = 0
    /// The last field ids of the enclosing structs.
    private var enclosing: [Int16] = []

    /// An empty encoder, at the start of a top-level struct.
    init() {}

    // MARK: Fields

    /// A `bool` field (its value is in the header's type nibble).
    mutating func bool(_ id: Int16, _ value: Bool) { fieldHeader(id, value ? .boolTrue : .boolFalse) }

    /// An `i8` field.
    mutating func i8(_ id: Int16, _ value: Int8) {
        fieldHeader(id, .i8)
        bytes.append(UInt8(bitPattern: value))
    }

    /// An `i16` field.
    mutating func i16(_ id: Int16, _ value: Int16) {
        fieldHeader(id, .i16)
        varint(zigzag(Int64(value)))
    }

    /// An `i32` field (enums are `i32` fields).
    mutating func i32(_ id: Int16, _ value: Int32) {
        fieldHeader(id, .i32)
        varint(zigzag(Int64(value)))
    }

    /// An `i64` field.
    mutating func i64(_ id: Int16, _ value: Int64) {
        fieldHeader(id, .i64)
        varint(zigzag(value))
    }

    /// A `binary` field.
    mutating func binary(_ id: Int16, _ value: [UInt8]) {
        fieldHeader(id, .binary)
        binaryValue(value)
    }

    /// A `string` field (UTF-8 `binary`).
    mutating func string(_ id: Int16, _ value: String) { binary(id, Array(value.utf8)) }

    /// Starts a struct field; write its fields, then ``endStruct()``.
    mutating func beginStruct(_ id: Int16) {
        fieldHeader(id, .struct)
        enclosing.append(lastFieldID)
        lastFieldID = 0
    }

    /// Ends a struct begun with ``beginStruct(_:)`` or ``beginListStruct()``.
    mutating func endStruct() {
        bytes.append(0)
        lastFieldID = enclosing.popLast() ?? 0
    }

    /// An empty struct field (a union member without data, such as a logical type's marker).
    mutating func emptyStruct(_ id: Int16) {
        beginStruct(id)
        endStruct()
    }

    /// Starts a list field of `count` elements of `elementType`; write the
    /// elements with ``listI32(_:)``, ``listBinary(_:)`` or
    /// ``beginListStruct()``/``endStruct()``.
    mutating func beginList(_ id: Int16, of elementType: FieldType, count: Int) {
        fieldHeader(id, .list)
        if count < 15 {
            bytes.append(UInt8(count) << 4 | elementType.rawValue)
        } else {
            bytes.append(0xF0 | elementType.rawValue)
            varint(UInt64(count))
        }
    }

    /// An `i32` list element.
    mutating func listI32(_ value: Int32) { varint(zigzag(Int64(value))) }

    /// A `binary` list element.
    mutating func listBinary(_ value: [UInt8]) { binaryValue(value) }

    /// A `string` list element.
    mutating func listString(_ value: String) { binaryValue(Array(value.utf8)) }

    /// Starts a struct list element; end it with ``endStruct()``.
    mutating func beginListStruct() {
        enclosing.append(lastFieldID)
        lastFieldID = 0
    }

    /// Ends the top-level struct.
    mutating func stop() { bytes.append(0) }

    // MARK: Encoding

    private mutating func fieldHeader(_ id: Int16, _ type: FieldType) {
        let delta = Int(id) - Int(lastFieldID)
        if delta > 0 && delta <= 15 {
            bytes.append(UInt8(delta) << 4 | type.rawValue)
        } else {
            bytes.append(type.rawValue)
            varint(zigzag(Int64(id)))
        }
        lastFieldID = id
    }

    private mutating func binaryValue(_ value: [UInt8]) {
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    private func zigzag(_ value: Int64) -> UInt64 { ULEB128.zigzag(value) }

    private mutating func varint(_ value: UInt64) { ULEB128.append(value, to: &bytes) }
}
