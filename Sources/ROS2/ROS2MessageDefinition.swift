import ByteCursor
import Foundation

/// A flat `ros2msg` message definition, parsed from a schema's text, that
/// decodes CDR payloads into named fields — every schema this project writes
/// is flat (primitives, strings, and arrays of them) but for the sample time,
/// a `builtin_interfaces/Time`, read as one value in nanoseconds.
///
/// ```swift
/// let definition = try ROS2MessageDefinition(parsing: "uint8 channel\nfloat64 value")
/// let fields = try definition.decode(payload)  // [("channel", .uint(1)), ("value", .double(0.5))]
/// ```
public struct ROS2MessageDefinition: Sendable, Hashable {
    /// A field's primitive type.
    public enum Primitive: String, Sendable, Hashable, CaseIterable {
        case bool, byte, char, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64, string
        /// `builtin_interfaces/Time` (`int32 sec`, `uint32 nanosec`), decoded
        /// as one `.int` of nanoseconds since the epoch.
        case time = "builtin_interfaces/Time"

        /// The primitive a `ros2msg` type names, accepting the long form
        /// `builtin_interfaces/msg/Time` too.
        init?(typeName: String) {
            self.init(rawValue: typeName == "builtin_interfaces/msg/Time" ? Primitive.time.rawValue : typeName)
        }
    }

    /// One field: name, type, and array shape (`nil` for a scalar, 0 for unbounded).
    public struct Field: Sendable, Hashable {
        public var name: String
        public var type: Primitive
        public var arrayLength: Int?
    }

    /// The fields in order.
    public var fields: [Field]

    /// Parses a definition; comments, blank lines and constants are skipped.
    ///
    /// The nested definition that follows a `=====` line (as MCAP's
    /// `ros2msg` encoding appends `builtin_interfaces/Time`'s) is not read:
    /// the only nested type accepted is that one, known here.
    ///
    /// - Throws: ``CDRError`` (`.unsupported`) for other nested message types
    ///   or a line that is not `type name`.
    public init(parsing text: String) throws(CDRError) {
        var fields: [Field] = []
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line =
                rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first
                .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if line.isEmpty { continue }
            if line.hasPrefix("=====") { break }  // further (nested) definitions: not used by flat messages
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard parts.count >= 2 else {
                throw CDRError(.unsupported, "ros2msg line '\(line)' is not 'type name'")
            }
            if parts[1].contains("=") || (parts.count > 2 && parts[2].hasPrefix("=")) { continue }  // a constant
            var typeText = parts[0]
            var arrayLength: Int?
            if let open = typeText.firstIndex(of: "[") {
                let inside = typeText[typeText.index(after: open)...].dropLast()
                arrayLength = inside.isEmpty ? 0 : Int(inside.drop(while: { $0 == "<" || $0 == "=" }))
                typeText = String(typeText[..<open])
                guard arrayLength != nil else { throw CDRError(.unsupported, "ros2msg array '\(parts[0])'") }
            }
            guard let type = Primitive(typeName: typeText) else {
                throw CDRError(.unsupported, "ros2msg type '\(typeText)' (nested types are not supported)")
            }
            fields.append(Field(name: parts[1], type: type, arrayLength: arrayLength))
        }
        self.fields = fields
    }

    /// Decodes a CDR payload (with its 4-byte header) into named fields.
    ///
    /// - Throws: ``CDRError`` (`.corrupt`) when the payload is shorter
    ///   than the definition says.
    public func decode(_ payload: [UInt8]) throws(CDRError) -> [(name: String, value: CDRValue)] {
        try decode(bytes: payload)
    }

    /// Decodes a CDR payload borrowed from elsewhere (a chunk read into
    /// memory), as ``decode(_:)`` does.
    ///
    /// - Throws: ``CDRError`` (`.corrupt`) when the payload is shorter
    ///   than the definition says.
    package func decode(_ payload: UnsafeRawBufferPointer) throws(CDRError) -> [(name: String, value: CDRValue)] {
        try decode(bytes: payload)
    }

    /// Decodes a CDR payload borrowed from elsewhere into `values`, one per
    /// field in schema order (emptied first, its capacity kept): what
    /// ``decode(_:)`` returns without the names, and without an array per
    /// message for a caller that decodes many.
    ///
    /// - Throws: ``CDRError`` (`.corrupt`) when the payload is shorter
    ///   than the definition says; `values` then holds the fields before.
    package func decode(_ payload: UnsafeRawBufferPointer, into values: inout [CDRValue]) throws(CDRError) {
        values.removeAll(keepingCapacity: true)
        try decode(bytes: payload) { values.append($0) }
    }

    private func decode<Bytes: ByteStorage>(
        bytes payload: Bytes
    ) throws(CDRError) -> [(name: String, value: CDRValue)] {
        var out: [(name: String, value: CDRValue)] = []
        out.reserveCapacity(fields.count)
        try decode(bytes: payload) { out.append((fields[out.count].name, $0)) }
        return out
    }

    /// Decodes the fields in schema order, handing each value to `emit`.
    @inline(__always)
    private func decode<Bytes: ByteStorage>(
        bytes payload: Bytes, _ emit: (CDRValue) -> Void
    ) throws(CDRError) {
        guard var reader = CDRReader(payload) else {
            throw CDRError(.corrupt, "the payload has no little-endian CDR header")
        }
        for field in fields {
            let value: CDRValue?
            switch field.arrayLength {
            case nil:
                value = reader.value(field.type)
            case let length?:
                let count: Int? = length > 0 ? length : reader.uint32().map(Int.init)
                if let count, count <= payload.byteCount {
                    if field.type == .uint8 || field.type == .byte {
                        value = reader.bytes(count).map(CDRValue.bytes)
                    } else {
                        var items: [CDRValue] = []
                        for _ in 0..<count {
                            guard let item = reader.value(field.type) else { break }
                            items.append(item)
                        }
                        value = items.count == count ? .array(items) : nil
                    }
                } else {
                    value = nil
                }
            }
            guard let value else {
                throw CDRError(.corrupt, "the payload ends before field \(field.name)", cause: reader.failure)
            }
            emit(value)
        }
    }
}

extension CDRReader {
    /// Reads one primitive.
    package mutating func value(_ type: ROS2MessageDefinition.Primitive) -> CDRValue? {
        switch type {
        case .bool: uint8().map { .bool($0 != 0) }
        case .byte, .char, .uint8: uint8().map { .uint(UInt64($0)) }
        case .int8: uint8().map { .int(Int64(Int8(bitPattern: $0))) }
        case .int16: integerValue(UInt16.self).map { .int(Int64(Int16(bitPattern: $0))) }
        case .uint16: integerValue(UInt16.self).map { .uint(UInt64($0)) }
        case .int32: uint32().map { .int(Int64(Int32(bitPattern: $0))) }
        case .uint32: uint32().map { .uint(UInt64($0)) }
        case .int64: uint64().map { .int(Int64(bitPattern: $0)) }
        case .uint64: uint64().map { .uint($0) }
        case .float32: uint32().map { .double(Double(Float(bitPattern: $0))) }
        case .float64: float64().map { .double($0) }
        case .string: string().map { .string($0) }
        case .time:
            uint32().flatMap { seconds in
                uint32().map { .int(Int64(Int32(bitPattern: seconds)) * 1_000_000_000 + Int64($0)) }
            }
        }
    }
}
