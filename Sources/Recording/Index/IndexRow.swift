package import GRDB

#if canImport(Glibc)
import Glibc
#endif

/// A row read from `index.sqlite`, whose values are checked before use.
///
/// The index is a file anyone can edit (`sqlite3`, DuckDB, a bad disk), and
/// SQLite stores any type in any column: every value read from it goes
/// through an accessor here, which checks its type, sign and range and
/// throws a ``RecordingError`` (`.index`) naming the table, the row and the
/// column — never a trap.
///
/// ```swift
/// let row = IndexRow(try Row.fetchOne(db, sql: "SELECT id, offset FROM chunks LIMIT 1")!, table: "chunks")
/// let offset = try row.uint64("offset")
/// ```
///
/// In a join, select the other tables' ids as `"<table>.id"` (for example
/// `s.id AS "segments.id"`) and pass `table:` to the accessor, so an error
/// names the right row.
package struct IndexRow {
    /// The largest count (of messages, chunks, values) the index may hold:
    /// far beyond any real recording, small enough that sums of 65,535
    /// streams' counts cannot overflow.
    package static let maximumCount: Int64 = 1 << 46
    /// The largest byte size or offset the index may hold (1 PiB).
    package static let maximumBytes: Int64 = 1 << 50

    private let row: Row
    /// The table the row's unqualified columns come from.
    package let table: String

    /// Wraps a fetched row of `table`.
    package init(_ row: Row, table: String) {
        self.row = row
        self.table = table
    }

    /// The row's id in `table` (or the default table), for messages.
    private func rowName(_ table: String?) -> String {
        let column = table.map { "\($0).id" } ?? "id"
        if case .int64(let id)? = (row[column] as DatabaseValue?)?.storage { return "row \(id)" }
        // chunk_streams has no id of its own.
        if (table ?? self.table) == "chunk_streams",
            case .int64(let chunk)? = (row["chunk_id"] as DatabaseValue?)?.storage,
            case .int64(let stream)? = (row["stream_id"] as DatabaseValue?)?.storage
        {
            return "the row of chunk \(chunk) and stream \(stream)"
        }
        return "a row"
    }

    /// An error naming the table, row and column.
    package func invalid(_ column: String, table: String? = nil, _ problem: String) -> RecordingError {
        RecordingError(
            .index,
            "index.sqlite: table \(table ?? self.table), \(rowName(table)), column \(column): "
                + "\(problem) (`tlm verify --repair` rebuilds the index from the segments)")
    }

    /// Whether the row has `column` (an index of an older schema lacks the newer columns).
    package func hasColumn(_ column: String) -> Bool { row.hasColumn(column) }

    private func value(_ column: String, table: String?) throws(RecordingError) -> DatabaseValue {
        guard row.hasColumn(column) else { throw invalid(column, table: table, "is missing") }
        return (row[column] as DatabaseValue?) ?? .null
    }

    private static func describe(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "NULL"
        case .int64(let number): "\(number)"
        case .double(let number): "\(number)"
        case .string(let text): "'\(text.prefix(40))'"
        case .blob(let data): "a blob of \(data.count) bytes"
        }
    }

    /// An integer, or `nil` for NULL; a value of another type is an error.
    package func optionalInt64(
        _ column: String, table: String? = nil, in range: ClosedRange<Int64>? = nil
    )
        throws(RecordingError) -> Int64?
    {
        let stored = try value(column, table: table)
        let number: Int64
        switch stored.storage {
        case .null: return nil
        case .int64(let integer): number = integer
        default: throw invalid(column, table: table, "\(Self.describe(stored)) is not an integer")
        }
        if let range, !range.contains(number) {
            let problem =
                number < 0 && range.lowerBound >= 0
                ? "\(number) is negative"
                : "\(number) is outside \(range.lowerBound)...\(range.upperBound)"
            throw invalid(column, table: table, problem)
        }
        return number
    }

    /// An integer in `range`.
    package func int64(
        _ column: String, table: String? = nil, in range: ClosedRange<Int64>? = nil
    )
        throws(RecordingError) -> Int64
    {
        guard let number = try optionalInt64(column, table: table, in: range) else {
            throw invalid(column, table: table, "is NULL")
        }
        return number
    }

    /// A non-negative integer up to `maximum` (a byte offset or size, a time).
    package func uint64(_ column: String, table: String? = nil, maximum: Int64 = .max) throws(RecordingError) -> UInt64
    {
        UInt64(try int64(column, table: table, in: 0...maximum))
    }

    /// A non-negative integer up to `maximum`, or `nil` for NULL.
    package func optionalUInt64(
        _ column: String, table: String? = nil, maximum: Int64 = .max
    )
        throws(RecordingError) -> UInt64?
    {
        try optionalInt64(column, table: table, in: 0...maximum).map { UInt64($0) }
    }

    /// A count: an integer in `0...maximumCount`.
    package func count(_ column: String, table: String? = nil) throws(RecordingError) -> Int {
        Int(try int64(column, table: table, in: 0...Self.maximumCount))
    }

    /// A byte offset or size: an integer in `0...maximumBytes`.
    package func bytes(_ column: String, table: String? = nil) throws(RecordingError) -> UInt64 {
        try uint64(column, table: table, maximum: Self.maximumBytes)
    }

    /// A time in nanoseconds since the Unix epoch: a non-negative integer.
    package func time(_ column: String, table: String? = nil) throws(RecordingError) -> UInt64 {
        try uint64(column, table: table)
    }

    /// A time, or `nil` for NULL.
    package func optionalTime(_ column: String, table: String? = nil) throws(RecordingError) -> UInt64? {
        try optionalUInt64(column, table: table)
    }

    /// An MCAP channel id: an integer in `1...65535`.
    package func channelID(_ column: String, table: String? = nil) throws(RecordingError) -> UInt16 {
        UInt16(try int64(column, table: table, in: 1...Int64(UInt16.max)))
    }

    /// A text value, or `nil` for NULL.
    package func optionalString(_ column: String, table: String? = nil) throws(RecordingError) -> String? {
        let stored = try value(column, table: table)
        switch stored.storage {
        case .null: return nil
        case .string(let text): return text
        default: throw invalid(column, table: table, "\(Self.describe(stored)) is not text")
        }
    }

    /// A blob's bytes; any other value (NULL included) is an error.
    package func blob(_ column: String, table: String? = nil) throws(RecordingError) -> [UInt8] {
        let stored = try value(column, table: table)
        guard case .blob(let data) = stored.storage else {
            throw invalid(column, table: table, "\(Self.describe(stored)) is not a blob")
        }
        return [UInt8](data)
    }

    /// A text value.
    package func string(_ column: String, table: String? = nil) throws(RecordingError) -> String {
        guard let text = try optionalString(column, table: table) else {
            throw invalid(column, table: table, "is NULL")
        }
        return text
    }

    /// A finite real number (integers are accepted), or `nil` for NULL.
    package func optionalDouble(_ column: String, table: String? = nil) throws(RecordingError) -> Double? {
        let stored = try value(column, table: table)
        switch stored.storage {
        case .null: return nil
        case .double(let number) where number.isFinite: return number
        case .int64(let number): return Double(number)
        default: throw invalid(column, table: table, "\(Self.describe(stored)) is not a finite number")
        }
    }

    /// A value statistic (`value_min`, `value_sum`, …): a real number that
    /// may be infinite (a derived `x/0` is recorded as such), or `nil` for
    /// NULL (SQLite stores a NaN as NULL).
    package func optionalValue(_ column: String, table: String? = nil) throws(RecordingError) -> Double? {
        let stored = try value(column, table: table)
        switch stored.storage {
        case .null: return nil
        case .double(let number) where !number.isNaN: return number
        case .int64(let number): return Double(number)
        default: throw invalid(column, table: table, "\(Self.describe(stored)) is not a number")
        }
    }

    /// A 0-or-1 flag.
    package func bool(_ column: String, table: String? = nil) throws(RecordingError) -> Bool {
        try int64(column, table: table, in: 0...1) == 1
    }

    /// A segment's path, relative to the recording, that cannot point
    /// outside it: `<name>.mcap`, or `segments/<name>.mcap` in a recording
    /// made in the old layout (`RecordingLayout`).
    package func segmentPath(_ column: String, table: String? = nil) throws(RecordingError) -> String {
        let path = try string(column, table: table)
        guard RecordingLayout.isSegmentPath(path) else {
            throw invalid(
                column, table: table,
                "'\(path.prefix(80))' is not a segment path (<name>.mcap, or segments/<name>.mcap in an old recording)")
        }
        return path
    }
}

extension IndexRow {
    /// Where a chunk row says its chunk is — `path` (from `segments`),
    /// `offset` and `length` (from `chunks`) — checked against the segment
    /// file in `directory`: the chunk must lie inside it.
    ///
    /// - Throws: ``RecordingError`` (`.index`) for a bad value, `.notFound`
    ///   when the segment file is missing.
    package func chunkLocation(
        directory: String, pathTable: String? = "segments", chunkTable: String? = nil
    )
        throws(RecordingError) -> (path: String, offset: UInt64, length: Int)
    {
        let path = try segmentPath("path", table: pathTable)
        let offset = try bytes("offset", table: chunkTable)
        let length = try bytes("length", table: chunkTable)
        guard offset >= 8 else { throw invalid("offset", table: chunkTable, "\(offset) is inside the file's magic") }
        guard length > 9 else { throw invalid("length", table: chunkTable, "\(length) is too short for a chunk") }
        var status = stat()
        guard stat(directory + "/" + path, &status) == 0 else {
            throw RecordingError(.notFound, "segment \(directory)/\(path) is missing")
        }
        if let kind = RegularFile.kind(status.st_mode) {
            throw RecordingError(.io, "segment \(path) cannot be read: it is \(kind), not a regular file")
        }
        let size = UInt64(clamping: status.st_size)
        guard offset + length <= size else {
            throw invalid(
                "offset", table: chunkTable,
                "the chunk at \(offset) of \(length) bytes ends past the end of \(path) (\(size) bytes)")
        }
        return (path, offset, Int(length))
    }
}
