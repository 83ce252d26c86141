import ROS2
import Recording

/// The Parquet columns of one exported topic, and how a message fills them.
///
/// The leading columns depend on the ``Style``. A per-topic file
/// (``Style/stream``): `log_time` (TIMESTAMP(MICROS, UTC), the receive
/// time), `log_time_ns` (INT64, its exact nanoseconds), `publish_time`
/// (UINT_64, nanoseconds), `sequence` (UINT_32); a field that has the name of
/// one of them keeps it, and that column is renamed with a leading
/// underscore (`_sequence`). A lake table's rows (``Style/lake(_:)``):
/// `topic`, `device_id`, `device_family`, `recording` (STRING), `sample_time`
/// and `receive_time` (TIMESTAMP(MICROS, UTC)), `sample_time_ns` and
/// `receive_time_ns` (INT64), `sequence` (UINT_32); there a field of one of
/// those names is renamed instead, so every table has the same leading
/// columns. Then the schema's fields in order: a scalar field is a column
/// of its type, an array (fixed or unbounded, a `uint8[]` included) a LIST
/// column of its element type; a field named like a reserved name (a Hive
/// partition key) gets leading underscores. A topic whose schema is not a
/// readable `ros2msg` has a `payload` column (BYTE_ARRAY) instead of fields.
///
/// A message's CDR payload is decoded straight into the columns, with the
/// same rules as `ROS2MessageDefinition.decode(_:)` (alignment relative to
/// the 4-byte header, strings with their NUL, invalid UTF-8 replaced), so a
/// file holds exactly the values the reader's typed messages have. A schema
/// of scalar numbers and bools only has a fixed layout (each field at the
/// same offset in every payload): a run of its messages is appended column
/// by column, each value loaded at its offset.
struct ParquetTopicLayout: Sendable {
    /// One column's description.
    struct Column: Sendable, Hashable {
        var name: String
        var type: ParquetColumnType
        var isList: Bool
        /// Whether its values are dictionary-encoded (a lake's constant strings).
        var dictionary = false
    }

    /// Which leading columns a row has.
    enum Style: Sendable {
        /// A per-topic file: `log_time`, `log_time_ns`, `publish_time`, `sequence`.
        case stream
        /// A lake table's row: the topic's constants, both times twice, `sequence`.
        case lake(LakeRow)
    }

    /// The constant leading values of a lake table's rows of one topic.
    struct LakeRow: Sendable {
        var topic: String
        var deviceID: String
        var deviceFamily: String
        var recording: String
    }

    /// The leading column names of a lake table, in order.
    static let lakeColumns = [
        "topic", "device_id", "device_family", "recording", "sample_time", "receive_time", "sample_time_ns",
        "receive_time_ns", "sequence",
    ]

    /// The columns, in order.
    let columns: [Column]
    /// The index of the first field's column (the leading columns' count).
    let fieldBase: Int
    /// A lake row's constant strings (topic, device, family, recording), as UTF-8; empty for a stream.
    private let constants: [[UInt8]]
    /// A field as the decoder needs it: its type and array shape (no name, so no reference counting).
    private struct FieldPlan: Sendable {
        var type: ROS2MessageDefinition.Primitive
        /// `nil` for a scalar, 0 for an unbounded array.
        var arrayLength: Int?
    }

    /// A field of a fixed layout: its type and where it lies in every payload.
    private struct FixedField: Sendable {
        var type: ROS2MessageDefinition.Primitive
        var offset: Int
    }

    /// The schema's fields (`nil`: the payload is one binary column).
    private let fields: [ROS2MessageDefinition.Field]?
    private let plan: [FieldPlan]
    /// The fields' places when every field is a scalar number or bool (no
    /// string, no array): each lies at the same offset in every payload.
    private let fixed: [FixedField]?
    /// The bytes a payload of the fixed layout needs (header included).
    private let fixedLength: Int

    /// The layout of a topic.
    ///
    /// - Parameters:
    ///   - topic: The topic.
    ///   - reserved: Names no column may have (partition keys): a field of
    ///     such a name gets leading underscores until its name is free.
    ///   - style: The leading columns.
    init(_ topic: ExportTopic, reserved: Set<String> = [], style: Style = .stream) {
        let fields = topic.schemaEncoding == "ros2msg" ? topic.definition?.fields : nil
        var fieldNames: [String] = []
        var used = reserved
        if case .lake = style { used.formUnion(Self.lakeColumns) }
        for field in fields ?? [] {
            var name = field.name
            while used.contains(name) { name = "_" + name }
            used.insert(name)
            fieldNames.append(name)
        }
        let taken = used.union(fields == nil ? ["payload"] : [])
        func metadataName(_ name: String) -> String {
            var name = name
            while taken.contains(name) { name = "_" + name }
            return name
        }
        var columns: [Column]
        switch style {
        case .stream:
            columns = [
                Column(name: metadataName("log_time"), type: .timestampMicroseconds, isList: false),
                Column(name: metadataName("log_time_ns"), type: .int64(signed: true), isList: false),
                Column(name: metadataName("publish_time"), type: .int64(signed: false), isList: false),
                Column(name: metadataName("sequence"), type: .int32(bitWidth: 32, signed: false), isList: false),
            ]
            constants = []
        case .lake(let row):
            let types: [ParquetColumnType] = [
                .string, .string, .string, .string, .timestampMicroseconds, .timestampMicroseconds,
                .int64(signed: true), .int64(signed: true), .int32(bitWidth: 32, signed: false),
            ]
            columns = zip(Self.lakeColumns, types).map { name, type in
                Column(name: name, type: type, isList: false, dictionary: type == .string)
            }
            constants = [row.topic, row.deviceID, row.deviceFamily, row.recording].map { Array($0.utf8) }
        }
        fieldBase = columns.count
        if let fields {
            columns += zip(fields, fieldNames).map { field, name in
                Column(name: name, type: ParquetColumnType(field.type), isList: field.arrayLength != nil)
            }
        } else {
            columns.append(Column(name: "payload", type: .binary, isList: false))
        }
        self.columns = columns
        self.fields = fields
        self.plan = (fields ?? []).map { FieldPlan(type: $0.type, arrayLength: $0.arrayLength) }
        // As the decoder walks a payload: each field aligned to its size, relative to the 4-byte header.
        var fixed: [FixedField]? = fields == nil ? nil : []
        var position = 4
        for field in plan {
            guard field.arrayLength == nil, let size = Self.fixedSize(field.type) else {
                fixed = nil
                break
            }
            let alignment = field.type == .time ? 4 : size
            position += (alignment - (position - 4) % alignment) % alignment
            fixed?.append(FixedField(type: field.type, offset: position))
            position += size
        }
        self.fixed = fixed
        self.fixedLength = position
    }

    /// The bytes a scalar of `type` takes in CDR (`nil`: not of a fixed size).
    private static func fixedSize(_ type: ROS2MessageDefinition.Primitive) -> Int? {
        switch type {
        case .bool, .byte, .char, .uint8, .int8: 1
        case .int16, .uint16: 2
        case .int32, .uint32, .float32: 4
        case .int64, .uint64, .float64, .time: 8
        case .string: nil
        }
    }

    /// The nanoseconds since the epoch of a `builtin_interfaces/Time` read
    /// as one little-endian `UInt64` (`sec` in the low half), as the bits
    /// of an `int64` column.
    @inline(__always)
    fileprivate static func nanoseconds(_ time: UInt64) -> UInt64 {
        let seconds = Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: time)))
        return UInt64(bitPattern: seconds &* 1_000_000_000 &+ Int64(time >> 32))
    }

    /// Empty column writers for a new file.
    func makeColumnWriters() -> [ParquetColumnWriter] {
        columns.map { ParquetColumnWriter(name: $0.name, type: $0.type, isList: $0.isList, dictionary: $0.dictionary) }
    }

    /// Appends one message as a row.
    ///
    /// - Throws: `RecordingError` (`.corrupt`) when the payload does not
    ///   match the schema; the file's current row group is then unusable
    ///   (the export stops).
    func append(_ message: RecordedMessageView, to file: ParquetFileWriter) throws(RecordingError) {
        let columns = file.unretainedColumns
        if constants.isEmpty {
            columns[0]._withUnsafeGuaranteedRef { $0.appendInt64(message.logTime / 1000) }
            columns[1]._withUnsafeGuaranteedRef { $0.appendInt64(message.logTime) }
            columns[2]._withUnsafeGuaranteedRef { $0.appendInt64(message.publishTime) }
            columns[3]._withUnsafeGuaranteedRef { $0.appendInt32(message.sequence) }
        } else {
            for (index, constant) in constants.enumerated() {
                constant.withUnsafeBytes { bytes in
                    columns[index]._withUnsafeGuaranteedRef { $0.appendConstant(bytes, count: 1) }
                }
            }
            columns[4]._withUnsafeGuaranteedRef { $0.appendInt64(message.publishTime / 1000) }
            columns[5]._withUnsafeGuaranteedRef { $0.appendInt64(message.logTime / 1000) }
            columns[6]._withUnsafeGuaranteedRef { $0.appendInt64(message.publishTime) }
            columns[7]._withUnsafeGuaranteedRef { $0.appendInt64(message.logTime) }
            columns[8]._withUnsafeGuaranteedRef { $0.appendInt32(message.sequence) }
        }
        if let fields {
            let failure = Self.decode(message.payload, plan: plan, base: fieldBase, into: columns)
            if let failure {
                let reason =
                    failure.field.map { "the payload ends before field \(fields[$0].name)" }
                    ?? "the payload has no little-endian CDR header"
                throw RecordingError(.corrupt, "\(message.topic) at \(message.logTime): \(reason)")
            }
        } else {
            columns[fieldBase]._withUnsafeGuaranteedRef { $0.appendBytes(message.payload) }
        }
        file.endRow()
    }

    /// Appends the messages `range` of a run (all of this topic) as rows:
    /// exactly what appending their views one by one does. When the fields
    /// have a fixed layout and every payload is long enough, column by
    /// column, each value loaded at its offset; else row by row (which gives
    /// the error of the first payload that does not match).
    ///
    /// - Throws: `RecordingError` (`.corrupt`) when a payload does not match the schema.
    func append(_ run: RecordedMessageRun, _ range: Range<Int>, to file: ParquetFileWriter) throws(RecordingError) {
        let entries = UnsafeBufferPointer(rebasing: run.entries[range])
        guard let fixed, let base = run.bytes.baseAddress,
            entries.allSatisfy({ entry in
                entry.count >= fixedLength && base.load(fromByteOffset: entry.start, as: UInt8.self) == 0x00
                    && base.load(fromByteOffset: entry.start + 1, as: UInt8.self) == 0x01
            })
        else {
            for index in range { try append(run[index], to: file) }
            return
        }
        let columns = file.unretainedColumns
        let count = entries.count
        if constants.isEmpty {
            columns[0]._withUnsafeGuaranteedRef { $0.appendInt64s(count: count) { entries[$0].logTime / 1000 } }
            columns[1]._withUnsafeGuaranteedRef { $0.appendInt64s(count: count) { entries[$0].logTime } }
            columns[2]._withUnsafeGuaranteedRef { $0.appendInt64s(count: count) { entries[$0].publishTime } }
            columns[3]._withUnsafeGuaranteedRef { $0.appendInt32s(count: count) { entries[$0].sequence } }
        } else {
            for (index, constant) in constants.enumerated() {
                constant.withUnsafeBytes { bytes in
                    columns[index]._withUnsafeGuaranteedRef { column in
                        column.appendConstant(bytes, count: count)
                    }
                }
            }
            columns[4]._withUnsafeGuaranteedRef { $0.appendInt64s(count: count) { entries[$0].publishTime / 1000 } }
            columns[5]._withUnsafeGuaranteedRef { $0.appendInt64s(count: count) { entries[$0].logTime / 1000 } }
            columns[6]._withUnsafeGuaranteedRef { $0.appendInt64s(count: count) { entries[$0].publishTime } }
            columns[7]._withUnsafeGuaranteedRef { $0.appendInt64s(count: count) { entries[$0].logTime } }
            columns[8]._withUnsafeGuaranteedRef { $0.appendInt32s(count: count) { entries[$0].sequence } }
        }
        for (index, field) in fixed.enumerated() {
            columns[fieldBase + index]._withUnsafeGuaranteedRef { column in
                Self.appendFixed(field, of: entries, in: base, to: column)
            }
        }
        file.endRows(count)
    }

    /// Appends one fixed-layout field of every entry to its column.
    private static func appendFixed(
        _ field: FixedField, of entries: UnsafeBufferPointer<ChunkPrefetcher.Entry>, in base: UnsafeRawPointer,
        to column: ParquetColumnWriter
    ) {
        let count = entries.count
        let offset = field.offset
        @inline(__always) func load<T: FixedWidthInteger>(_ index: Int, as _: T.Type) -> T {
            T(littleEndian: base.loadUnaligned(fromByteOffset: entries[index].start + offset, as: T.self))
        }
        switch field.type {
        case .bool:
            column.appendBools(count: count) { load($0, as: UInt8.self) != 0 }
        case .byte, .char, .uint8:
            column.appendInt32s(count: count) { UInt32(load($0, as: UInt8.self)) }
        case .int8:
            column.appendInt32s(count: count) { UInt32(bitPattern: Int32(Int8(bitPattern: load($0, as: UInt8.self)))) }
        case .int16:
            column.appendInt32s(count: count) {
                UInt32(bitPattern: Int32(Int16(bitPattern: load($0, as: UInt16.self))))
            }
        case .uint16:
            column.appendInt32s(count: count) { UInt32(load($0, as: UInt16.self)) }
        case .int32, .uint32:
            column.appendInt32s(count: count) { load($0, as: UInt32.self) }
        case .int64, .uint64:
            column.appendInt64s(count: count) { load($0, as: UInt64.self) }
        case .float32:
            column.appendFloats(count: count) { load($0, as: UInt32.self) }
        case .float64:
            column.appendDoubles(count: count) { load($0, as: UInt64.self) }
        case .time:
            column.appendInt64s(count: count) { Self.nanoseconds(load($0, as: UInt64.self)) }
        case .string:
            preconditionFailure("a string is never part of a fixed layout")
        }
    }

    /// What is wrong with a payload: the field it ends before (`nil`: no CDR header).
    private struct Failure {
        var field: Int?
    }

    /// Decodes a CDR payload into the field columns (from index `base`); returns
    /// what is wrong with it, or `nil`.
    private static func decode(
        _ payload: UnsafeRawBufferPointer, plan: [FieldPlan], base: Int,
        into columns: [Unmanaged<ParquetColumnWriter>]
    ) -> Failure? {
        guard payload.count >= 4, payload[0] == 0x00, payload[1] == 0x01 else { return Failure(field: nil) }
        var reader = Cursor(payload: payload)
        for index in plan.indices {
            let field = plan[index]
            let decoded = columns[base + index]._withUnsafeGuaranteedRef { column in
                decode(field, from: &reader, into: column)
            }
            guard decoded else { return Failure(field: index) }
        }
        return nil
    }

    /// Decodes one field into its column; false when the payload ends first.
    @inline(__always)
    private static func decode(_ field: FieldPlan, from reader: inout Cursor, into column: ParquetColumnWriter) -> Bool
    {
        let payload = reader.payload
        guard let length = field.arrayLength else { return reader.scalar(field.type, into: column) }
        var count = length
        if length == 0 {
            guard let counted = reader.uint32() else { return false }
            count = Int(counted)
        }
        guard count <= payload.count else { return false }
        if count == 0 {
            column.appendEmptyList()
            return true
        }
        if field.type == .uint8 || field.type == .byte {
            guard count <= payload.count - reader.position else { return false }
            for item in 0..<count {
                column.appendListElementLevels(first: item == 0)
                column.appendInt32(UInt32(payload[reader.position + item]))
            }
            reader.position += count
        } else {
            for item in 0..<count {
                column.appendListElementLevels(first: item == 0)
                guard reader.scalar(field.type, into: column) else { return false }
            }
        }
        return true
    }

    /// A read position in a CDR payload.
    private struct Cursor {
        let payload: UnsafeRawBufferPointer
        var position = 4

        @inline(__always)
        private mutating func align(_ size: Int) {
            let body = position - 4
            position += (size - body % size) % size
        }

        @inline(__always)
        private mutating func load<T: FixedWidthInteger>(_: T.Type) -> T? {
            align(MemoryLayout<T>.size)
            guard position + MemoryLayout<T>.size <= payload.count else { return nil }
            let value = T(littleEndian: payload.loadUnaligned(fromByteOffset: position, as: T.self))
            position += MemoryLayout<T>.size
            return value
        }

        mutating func uint32() -> UInt32? { load(UInt32.self) }

        /// Reads one value of `type` and appends it to `column`; false when the payload ends first.
        @inline(__always)
        mutating func scalar(_ type: ROS2MessageDefinition.Primitive, into column: ParquetColumnWriter) -> Bool {
            switch type {
            case .bool:
                guard let value = load(UInt8.self) else { return false }
                column.appendBool(value != 0)
            case .byte, .char, .uint8:
                guard let value = load(UInt8.self) else { return false }
                column.appendInt32(UInt32(value))
            case .int8:
                guard let value = load(UInt8.self) else { return false }
                column.appendInt32(UInt32(bitPattern: Int32(Int8(bitPattern: value))))
            case .int16:
                guard let value = load(UInt16.self) else { return false }
                column.appendInt32(UInt32(bitPattern: Int32(Int16(bitPattern: value))))
            case .uint16:
                guard let value = load(UInt16.self) else { return false }
                column.appendInt32(UInt32(value))
            case .int32, .uint32:
                guard let value = load(UInt32.self) else { return false }
                column.appendInt32(value)
            case .int64, .uint64:
                guard let value = load(UInt64.self) else { return false }
                column.appendInt64(value)
            case .float32:
                guard let value = load(UInt32.self) else { return false }
                column.appendFloat(value)
            case .float64:
                guard let value = load(UInt64.self) else { return false }
                column.appendDouble(value)
            case .time:
                guard let seconds = load(UInt32.self), let nanoseconds = load(UInt32.self) else { return false }
                column.appendInt64(ParquetTopicLayout.nanoseconds(UInt64(nanoseconds) << 32 | UInt64(seconds)))
            case .string:
                guard let length = load(UInt32.self), length >= 1, Int(length) <= payload.count - position else {
                    return false
                }
                let text = UnsafeRawBufferPointer(rebasing: payload[position..<(position + Int(length) - 1)])
                position += Int(length)
                if text.allSatisfy({ $0 < 0x80 }) {
                    column.appendBytes(text)
                } else {
                    // As the reader decodes it: invalid UTF-8 becomes U+FFFD.
                    var decoded = String(decoding: text, as: UTF8.self)
                    decoded.withUTF8 { column.appendBytes(UnsafeRawBufferPointer($0)) }
                }
            }
            return true
        }
    }
}
