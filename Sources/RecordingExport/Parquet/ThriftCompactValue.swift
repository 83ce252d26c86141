import Recording

/// A Thrift structure decoded from the compact protocol without its IDL:
/// what `ParquetConcatenation` needs to read a Parquet footer written by
/// tlm, change a few offsets in it and encode it again, every other field
/// kept as it was.
///
/// ``decodeStruct(_:at:)`` reads one struct (fields in the order they
/// come); ``encoded`` writes it back byte for byte (field ids as deltas
/// where they fit, as ``ThriftCompactWriter`` does). Maps and sets are not
/// supported (Parquet's footer has none): they are an error.
indirect enum ThriftCompactValue: Hashable {
    case bool(Bool)
    case i8(Int8)
    case i16(Int16)
    case i32(Int32)
    case i64(Int64)
    case double(UInt64)
    case binary([UInt8])
    /// A list: its element type code and its elements.
    case list(UInt8, [ThriftCompactValue])
    /// A struct: its fields, in order.
    case `struct`([(id: Int16, value: ThriftCompactValue)])

    static func == (a: ThriftCompactValue, b: ThriftCompactValue) -> Bool { a.encoded == b.encoded }

    func hash(into hasher: inout Hasher) { hasher.combine(encoded) }

    // MARK: Access

    /// A struct's field `id` (`nil`: not a struct, or no such field).
    subscript(field id: Int16) -> ThriftCompactValue? {
        get {
            guard case .struct(let fields) = self else { return nil }
            return fields.first { $0.id == id }?.value
        }
        set {
            guard case .struct(var fields) = self else { return }
            if let index = fields.firstIndex(where: { $0.id == id }) {
                if let newValue { fields[index].value = newValue } else { fields.remove(at: index) }
            } else if let newValue {
                let index = fields.firstIndex { $0.id > id } ?? fields.count
                fields.insert((id, newValue), at: index)
            }
            self = .struct(fields)
        }
    }

    /// The value as an integer (`nil`: not an integer).
    var integer: Int64? {
        switch self {
        case .i8(let value): Int64(value)
        case .i16(let value): Int64(value)
        case .i32(let value): Int64(value)
        case .i64(let value): value
        default: nil
        }
    }

    /// A list's elements (`nil`: not a list).
    var elements: [ThriftCompactValue]? {
        guard case .list(_, let elements) = self else { return nil }
        return elements
    }

    // MARK: Decoding

    /// Decodes the struct at `offset` of `bytes`; `offset` ends after it.
    ///
    /// - Throws: `RecordingError` (`.corrupt`) for bytes that are not a compact-protocol struct.
    static func decodeStruct(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) throws(RecordingError) -> Self {
        var fields: [(id: Int16, value: ThriftCompactValue)] = []
        var lastID: Int16 = 0
        while true {
            let header = try byte(bytes, &offset)
            if header == 0 { return .struct(fields) }
            let type = header & 0x0F
            let delta = Int16(header >> 4)
            let id: Int16
            if delta != 0 {
                id = lastID + delta
            } else {
                guard let wide = Int16(exactly: zigzag(try varint(bytes, &offset))) else {
                    throw corrupt("a field id out of range")
                }
                id = wide
            }
            lastID = id
            let value: ThriftCompactValue
            switch type {
            case 1: value = .bool(true)
            case 2: value = .bool(false)
            default: value = try decodeValue(type: type, bytes, &offset)
            }
            fields.append((id, value))
        }
    }

    private static func decodeValue(
        type: UInt8, _ bytes: UnsafeRawBufferPointer, _ offset: inout Int
    ) throws(RecordingError) -> Self {
        switch type {
        case 1, 2:  // a bool list element is one byte
            return .bool(try byte(bytes, &offset) == 1)
        case 3: return .i8(Int8(bitPattern: try byte(bytes, &offset)))
        case 4, 5, 6:
            let value = zigzag(try varint(bytes, &offset))
            if type == 4 {
                guard let narrow = Int16(exactly: value) else { throw corrupt("an i16 out of range") }
                return .i16(narrow)
            }
            if type == 5 {
                guard let narrow = Int32(exactly: value) else { throw corrupt("an i32 out of range") }
                return .i32(narrow)
            }
            return .i64(value)
        case 7:
            guard offset + 8 <= bytes.count else { throw corrupt("a double past the end") }
            let bits = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
            return .double(UInt64(littleEndian: bits))
        case 8:
            let length = Int(try varint(bytes, &offset))
            guard length >= 0, length <= bytes.count - offset else { throw corrupt("a binary past the end") }
            let value = Array(bytes[offset..<(offset + length)])
            offset += length
            return .binary(value)
        case 9:
            let header = try byte(bytes, &offset)
            let elementType = header & 0x0F
            var count = Int(header >> 4)
            if count == 15 { count = Int(try varint(bytes, &offset)) }
            guard count >= 0, count <= bytes.count - offset else { throw corrupt("a list longer than the footer") }
            var elements: [ThriftCompactValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try decodeValue(type: elementType, bytes, &offset)) }
            return .list(elementType, elements)
        case 12:
            return try decodeStruct(bytes, at: &offset)
        default:
            throw corrupt("a field of type \(type) (maps and sets are not read)")
        }
    }

    private static func byte(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) throws(RecordingError) -> UInt8 {
        guard offset < bytes.count else { throw corrupt("it ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    private static func varint(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) throws(RecordingError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte(bytes, &offset)
            guard shift < 64 else { throw corrupt("a varint longer than 10 bytes") }
            value |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { return value }
            shift += 7
        }
    }

    private static func zigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    private static func corrupt(_ reason: String) -> RecordingError {
        RecordingError(.corrupt, "not a Parquet footer tlm can read: \(reason)")
    }

    // MARK: Encoding

    /// The value encoded (a struct with its stop byte).
    var encoded: [UInt8] {
        var out: [UInt8] = []
        encode(into: &out, inList: false)
        return out
    }

    private var typeCode: UInt8 {
        switch self {
        case .bool(let value): value ? 1 : 2
        case .i8: 3
        case .i16: 4
        case .i32: 5
        case .i64: 6
        case .double: 7
        case .binary: 8
        case .list: 9
        case .struct: 12
        }
    }

    private func encode(into out: inout [UInt8], inList: Bool) {
        switch self {
        case .bool(let value): if inList { out.append(value ? 1 : 2) }  // a field's bool is in its header
        case .i8(let value): out.append(UInt8(bitPattern: value))
        case .i16(let value): Self.varint(Self.zigzag(Int64(value)), into: &out)
        case .i32(let value): Self.varint(Self.zigzag(Int64(value)), into: &out)
        case .i64(let value): Self.varint(Self.zigzag(value), into: &out)
        case .double(let bits): withUnsafeBytes(of: bits.littleEndian) { out.append(contentsOf: $0) }
        case .binary(let value):
            Self.varint(UInt64(value.count), into: &out)
            out.append(contentsOf: value)
        case .list(let elementType, let elements):
            if elements.count < 15 {
                out.append(UInt8(elements.count) << 4 | elementType)
            } else {
                out.append(0xF0 | elementType)
                Self.varint(UInt64(elements.count), into: &out)
            }
            for element in elements { element.encode(into: &out, inList: true) }
        case .struct(let fields):
            var lastID: Int16 = 0
            for (id, value) in fields {
                let delta = Int(id) - Int(lastID)
                if delta > 0 && delta <= 15 {
                    out.append(UInt8(delta) << 4 | value.typeCode)
                } else {
                    out.append(value.typeCode)
                    Self.varint(Self.zigzag(Int64(id)), into: &out)
                }
                lastID = id
                value.encode(into: &out, inList: false)
            }
            out.append(0)
        }
    }

    private static func zigzag(_ value: Int64) -> UInt64 { ULEB128.zigzag(value) }

    private static func varint(_ value: UInt64, into out: inout [UInt8]) { ULEB128.append(value, to: &out) }
}
