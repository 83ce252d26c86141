import Foundation

/// Writes one Parquet file, row group by row group, as the Apache Parquet
/// format lays it out:
///
/// ```text
/// PAR1
/// row group 0: column chunk 0 (page header, zstd page), column chunk 1, …
/// row group 1: …
/// FileMetaData (Thrift compact) · its length (u32 LE) · PAR1
/// ```
///
/// Values go into the ``columns`` (one row = one value, or one list, per
/// column, then ``endRow()``); ``flushRowGroup()`` writes the buffered rows
/// as a row group: per column one data page (v1, PLAIN values, RLE/bit-packed
/// levels for list columns), zstd-compressed, with min/max/null-count
/// statistics in the column chunk's metadata. Memory is the buffered row
/// group; the output is opened with the first row group (or at
/// ``finish()``), so a file that never receives a row holds no descriptor.
///
/// Not `Sendable`: one writer belongs to one exporter.
final class ParquetFileWriter {
    /// What the footer records of one written column chunk.
    private struct ColumnChunk {
        var numValues: Int64
        var uncompressedSize: Int64
        var compressedSize: Int64
        var dataPageOffset: Int64
        /// The values' encoding (0 PLAIN, 5 DELTA_BINARY_PACKED).
        var encoding: Int32
        var statistics: (minimum: [UInt8]?, maximum: [UInt8]?, nullCount: Int64?)
    }

    /// What the footer records of one written row group.
    private struct RowGroup {
        var columns: [ColumnChunk]
        var rowCount: Int64
        var fileOffset: Int64
    }

    /// The columns, in schema order.
    let columns: [ParquetColumnWriter]
    /// The same columns without reference counting, for the per-value
    /// appends (``columns`` keeps them alive as long as the writer).
    let unretainedColumns: [Unmanaged<ParquetColumnWriter>]
    /// Rows buffered in the current row group.
    private(set) var bufferedRows = 0
    /// Rows written to the file so far (buffered ones not included).
    private(set) var writtenRows: Int64 = 0
    private let metadata: [(key: String, value: String)]
    private let openSink: () throws(RecordingError) -> any ByteSink
    /// The zstd contexts pages are compressed with, one per thread.
    private let compressors: [ZstdCompressor]
    private var sink: (any ByteSink)?
    private var offset: Int64 = 0
    private var rowGroups: [RowGroup] = []
    private var finished = false

    /// Creates a writer.
    ///
    /// - Parameters:
    ///   - columns: The file's columns, empty.
    ///   - metadata: Key/value pairs for the footer.
    ///   - compressors: The zstd contexts pages are compressed with (shared by an
    ///     exporter's files), one per thread a row group's pages are spread over.
    ///   - openSink: Opens the output, when the first row group (or the footer) is written.
    init(
        columns: [ParquetColumnWriter], metadata: [(key: String, value: String)], compressors: [ZstdCompressor],
        openSink: @escaping () throws(RecordingError) -> any ByteSink
    ) {
        self.columns = columns
        self.unretainedColumns = columns.map { Unmanaged.passUnretained($0) }
        self.metadata = metadata
        precondition(!compressors.isEmpty, "a Parquet file writer needs a zstd context")
        self.compressors = compressors
        self.openSink = openSink
    }

    /// Ends a row: every column received its value (or list).
    @inline(__always)
    func endRow() { bufferedRows += 1 }

    /// Ends `count` rows at once: every column received their values (``ParquetColumnWriter``'s bulk appends).
    @inline(__always)
    func endRows(_ count: Int) { bufferedRows += count }

    /// Bytes buffered in the current row group.
    var bufferedBytes: Int { columns.reduce(0) { $0 + $1.bufferedBytes } }

    /// Writes the buffered rows as a row group (nothing when there are none).
    ///
    /// - Throws: ``RecordingError`` when the output cannot be opened or written, or zstd fails.
    func flushRowGroup() throws(RecordingError) {
        guard bufferedRows > 0 else { return }
        let sink = try openedSink()
        let start = offset
        let pages = try compressedPages()
        var chunks: [ColumnChunk] = []
        chunks.reserveCapacity(columns.count)
        for (column, page) in zip(columns, pages) {
            chunks.append(try writeChunk(column, page: page, to: sink))
            column.reset()
        }
        rowGroups.append(RowGroup(columns: chunks, rowCount: Int64(bufferedRows), fileOffset: start))
        writtenRows += Int64(bufferedRows)
        bufferedRows = 0
    }

    /// Writes the last row group and the footer, and closes the output.
    ///
    /// - Throws: ``RecordingError`` when the output cannot be written.
    func finish() throws(RecordingError) {
        guard !finished else { return }
        try flushRowGroup()
        let sink = try openedSink()
        let footer = footerBytes()
        try sink.write(footer)
        var length = UInt32(footer.count).littleEndian
        try withUnsafeBytes(of: &length) { (raw: UnsafeRawBufferPointer) throws(RecordingError) in try sink.write(raw) }
        try sink.write(Self.magic)
        try sink.close()
        finished = true
    }

    /// The magic bytes at the start and end of a Parquet file.
    static let magic: [UInt8] = Array("PAR1".utf8)

    private func openedSink() throws(RecordingError) -> any ByteSink {
        if let sink { return sink }
        let opened = try openSink()
        try opened.write(Self.magic)
        offset = 4
        sink = opened
        return opened
    }

    /// A column's page, compressed: its uncompressed size and its zstd frame.
    private struct CompressedPage {
        var uncompressedSize = 0
        var bytes: [UInt8] = []
        /// The values' encoding: 0 PLAIN, 5 DELTA_BINARY_PACKED.
        var encoding: Int32 = 0
        var failure: RecordingError?
    }

    /// One row group's page compression, spread over lanes: each lane
    /// takes the next column not yet taken, largest first, and compresses it
    /// with its own compressor into the column's own slot, so lanes share
    /// nothing they write but the counter. `@unchecked Sendable`: the lanes
    /// only read the columns (the owner waits for them), each writes only
    /// the slots of the columns it took, and the counter is under a lock.
    private final class PageCompression: @unchecked Sendable {
        let columns: [ParquetColumnWriter]
        let compressors: [ZstdCompressor]
        let slots: UnsafeMutableBufferPointer<CompressedPage>
        /// Column indices, largest buffer first.
        let order: [Int]
        private let lock = NSLock()
        private var taken = 0
        var lanes: Int { min(compressors.count, columns.count) }

        init(columns: [ParquetColumnWriter], compressors: [ZstdCompressor]) {
            self.columns = columns
            self.compressors = compressors
            order = columns.indices.sorted { columns[$0].bufferedBytes > columns[$1].bufferedBytes }
            slots = .allocate(capacity: columns.count)
            slots.initialize(repeating: CompressedPage())
        }

        deinit {
            slots.deinitialize()
            slots.deallocate()
        }

        /// The next column to compress, or `nil` when every one is taken.
        private func next() -> Int? {
            lock.withLock {
                guard taken < order.count else { return nil }
                defer { taken += 1 }
                return order[taken]
            }
        }

        func run(lane: Int) {
            let compressor = compressors[lane]
            while let index = next() {
                let column = columns[index]
                func compress(_ raw: UnsafeRawBufferPointer) throws(RecordingError) {
                    slots[index].uncompressedSize = raw.count
                    slots[index].bytes = try compressor.compress(raw) { Array($0) }
                }
                do throws(RecordingError) {
                    let (body, encoding) = column.pageBody()
                    slots[index].encoding = encoding
                    if let body {
                        try body.withBytes(compress)
                    } else {
                        try column.values.withBytes(compress)
                    }
                } catch {
                    slots[index].failure = error
                }
            }
        }
    }

    /// Every column's page of the row group, compressed on up to
    /// `compressors.count` threads at once, so a row group's zstd work is
    /// spread over the cores; the bytes are the same as compressing them one
    /// by one.
    private func compressedPages() throws(RecordingError) -> [CompressedPage] {
        let job = PageCompression(columns: columns, compressors: compressors)
        if job.lanes <= 1 {
            job.run(lane: 0)
        } else {
            DispatchQueue.concurrentPerform(iterations: job.lanes) { lane in job.run(lane: lane) }
        }
        let pages = Array(job.slots)
        if let failure = pages.lazy.compactMap(\.failure).first { throw failure }
        return pages
    }

    /// Writes a column's data page (header, then the compressed body).
    private func writeChunk(
        _ column: ParquetColumnWriter, page: CompressedPage, to sink: any ByteSink
    ) throws(RecordingError) -> ColumnChunk {
        let pageOffset = offset
        let header = Self.pageHeader(
            uncompressedSize: page.uncompressedSize, compressedSize: page.bytes.count, valueCount: column.entryCount,
            encoding: page.encoding)
        try sink.write(header)
        try sink.write(page.bytes)
        offset += Int64(header.count + page.bytes.count)
        // Both sizes count the page header, as the format defines them.
        return ColumnChunk(
            numValues: Int64(column.entryCount), uncompressedSize: Int64(header.count + page.uncompressedSize),
            compressedSize: Int64(header.count + page.bytes.count), dataPageOffset: pageOffset,
            encoding: page.encoding, statistics: column.statistics())
    }

    /// A data page (v1) header: values in `encoding` (0 PLAIN, 5 DELTA_BINARY_PACKED), RLE levels.
    static func pageHeader(uncompressedSize: Int, compressedSize: Int, valueCount: Int, encoding: Int32 = 0) -> [UInt8]
    {
        var thrift = ThriftCompactWriter()
        thrift.i32(1, 0)  // type: DATA_PAGE
        thrift.i32(2, Int32(clamping: uncompressedSize))
        thrift.i32(3, Int32(clamping: compressedSize))
        thrift.beginStruct(5)  // data_page_header
        thrift.i32(1, Int32(clamping: valueCount))
        thrift.i32(2, encoding)  // encoding: PLAIN or DELTA_BINARY_PACKED
        thrift.i32(3, 3)  // definition_level_encoding: RLE
        thrift.i32(4, 3)  // repetition_level_encoding: RLE
        thrift.endStruct()
        thrift.stop()
        return thrift.bytes
    }

    /// The FileMetaData structure.
    private func footerBytes() -> [UInt8] {
        var thrift = ThriftCompactWriter()
        thrift.i32(1, 2)  // version
        writeSchema(&thrift)
        thrift.i64(3, writtenRows)
        thrift.beginList(4, of: .struct, count: rowGroups.count)
        for (ordinal, group) in rowGroups.enumerated() { writeRowGroup(group, ordinal: ordinal, &thrift) }
        if !metadata.isEmpty {
            thrift.beginList(5, of: .struct, count: metadata.count)
            for (key, value) in metadata {
                thrift.beginListStruct()
                thrift.string(1, key)
                thrift.string(2, value)
                thrift.endStruct()
            }
        }
        thrift.string(6, "tlm version \(TelemetryRecorderVersion.current)")
        thrift.beginList(7, of: .struct, count: columns.count)  // column_orders: type-defined order for every leaf
        for _ in columns {
            thrift.beginListStruct()
            thrift.emptyStruct(1)
            thrift.endStruct()
        }
        thrift.stop()
        return thrift.bytes
    }

    /// The schema elements, depth first: the root, then each column (a list column as three elements).
    private func writeSchema(_ thrift: inout ThriftCompactWriter) {
        let count = columns.reduce(1) { $0 + ($1.isList ? 3 : 1) }
        thrift.beginList(2, of: .struct, count: count)
        thrift.beginListStruct()
        thrift.string(4, "schema")
        thrift.i32(5, Int32(columns.count))
        thrift.endStruct()
        for column in columns {
            if column.isList {
                thrift.beginListStruct()
                thrift.i32(3, 0)  // REQUIRED
                thrift.string(4, column.name)
                thrift.i32(5, 1)
                thrift.i32(6, 3)  // converted type LIST
                thrift.beginStruct(10)
                thrift.emptyStruct(3)  // logical type LIST
                thrift.endStruct()
                thrift.endStruct()
                thrift.beginListStruct()
                thrift.i32(3, 2)  // REPEATED
                thrift.string(4, "list")
                thrift.i32(5, 1)
                thrift.endStruct()
            }
            thrift.beginListStruct()
            thrift.i32(1, column.type.physicalType)
            thrift.i32(3, 0)  // REQUIRED
            thrift.string(4, column.isList ? "element" : column.name)
            if let converted = column.type.convertedType { thrift.i32(6, converted) }
            column.type.writeLogicalType(&thrift)
            thrift.endStruct()
        }
    }

    private func writeRowGroup(_ group: RowGroup, ordinal: Int, _ thrift: inout ThriftCompactWriter) {
        thrift.beginListStruct()
        thrift.beginList(1, of: .struct, count: group.columns.count)
        for (column, chunk) in zip(columns, group.columns) {
            thrift.beginListStruct()
            thrift.i64(2, chunk.dataPageOffset)  // file_offset
            thrift.beginStruct(3)  // meta_data
            thrift.i32(1, column.type.physicalType)
            let encodings: [Int32] = column.isList ? [0, 3] : [chunk.encoding]  // the values', RLE (levels)
            thrift.beginList(2, of: .i32, count: encodings.count)
            for encoding in encodings { thrift.listI32(encoding) }
            thrift.beginList(3, of: .binary, count: column.path.count)
            for part in column.path { thrift.listString(part) }
            thrift.i32(4, 6)  // codec: ZSTD
            thrift.i64(5, chunk.numValues)
            thrift.i64(6, chunk.uncompressedSize)
            thrift.i64(7, chunk.compressedSize)
            thrift.i64(9, chunk.dataPageOffset)
            let statistics = chunk.statistics
            if statistics.nullCount != nil || statistics.minimum != nil {
                thrift.beginStruct(12)
                if let nullCount = statistics.nullCount { thrift.i64(3, nullCount) }
                if let maximum = statistics.maximum { thrift.binary(5, maximum) }
                if let minimum = statistics.minimum { thrift.binary(6, minimum) }
                thrift.endStruct()
            }
            thrift.endStruct()
            thrift.endStruct()
        }
        thrift.i64(2, group.columns.reduce(0) { $0 + $1.uncompressedSize })  // total_byte_size
        thrift.i64(3, group.rowCount)
        thrift.i64(5, group.fileOffset)
        thrift.i64(6, group.columns.reduce(0) { $0 + $1.compressedSize })
        thrift.i16(7, Int16(clamping: ordinal))
        thrift.endStruct()
    }
}
