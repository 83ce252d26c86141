import Foundation
import Locking
import MCAP
import Recording

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
/// as a row group: per column one data page (v1; values PLAIN,
/// DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT or RLE_DICTIONARY after a
/// dictionary page, see ``ParquetColumnWriter/pageBody()``; RLE/bit-packed
/// levels for list columns), zstd-compressed, with min/max/null-count statistics in the
/// column chunk's metadata. A full row group is encoded, compressed and
/// written by the exporter's ``ParquetRowGroupFlusher`` in the background
/// while the next one fills a second set of columns (the two sets take
/// turns). Memory is the buffered row group and the one in flight; the
/// output is opened with the first row group (or at ``finish()``), so a
/// file that never receives a row holds no descriptor.
///
/// Not `Sendable`: one writer belongs to one exporter (its row groups in
/// flight belong to the flusher until it is idle).
final class ParquetFileWriter {
    /// What the footer records of one written column chunk.
    private struct ColumnChunk {
        var numValues: Int64
        var uncompressedSize: Int64
        var compressedSize: Int64
        var dataPageOffset: Int64
        /// The dictionary page's offset (a dictionary column's chunk starts with it).
        var dictionaryPageOffset: Int64?
        /// The values' encoding (0 PLAIN, 5 DELTA_BINARY_PACKED, 8 RLE_DICTIONARY, 9 BYTE_STREAM_SPLIT).
        var encoding: Int32
        var statistics: (minimum: [UInt8]?, maximum: [UInt8]?, nullCount: Int64?)
    }

    /// What the footer records of one written row group.
    private struct RowGroup {
        var columns: [ColumnChunk]
        var rowCount: Int64
        var fileOffset: Int64
    }

    /// The columns the current row group fills, in schema order.
    private(set) var columns: [ParquetColumnWriter]
    /// The same columns without reference counting, for the per-value
    /// appends (``columns`` keeps them alive while they are current).
    private(set) var unretainedColumns: [Unmanaged<ParquetColumnWriter>]
    /// The other set of columns: the row group in flight (the flusher's
    /// until it is idle), then emptied for the row group after the current one.
    private var otherColumns: [ParquetColumnWriter]?
    /// Rows buffered in the current row group.
    private(set) var bufferedRows = 0
    /// Rows written to the file so far (buffered ones not included).
    private(set) var writtenRows: Int64 = 0
    private let metadata: [(key: String, value: String)]
    private let openSink: () throws(RecordingError) -> any ByteSink
    /// Compresses and writes the full row groups (shared by an exporter's files).
    private let flusher: ParquetRowGroupFlusher
    private var sink: (any ByteSink)?
    // Written by the row group in flight: read only when the flusher is idle.
    private var offset: Int64 = 0
    private var rowGroups: [RowGroup] = []
    private var finished = false

    /// Creates a writer.
    ///
    /// - Parameters:
    ///   - columns: The file's columns, empty.
    ///   - metadata: Key/value pairs for the footer.
    ///   - flusher: Compresses and writes the row groups (shared by an exporter's files).
    ///   - openSink: Opens the output, when the first row group (or the footer) is written.
    init(
        columns: [ParquetColumnWriter], metadata: [(key: String, value: String)], flusher: ParquetRowGroupFlusher,
        openSink: @escaping () throws(RecordingError) -> any ByteSink
    ) {
        self.columns = columns
        self.unretainedColumns = columns.map { Unmanaged.passUnretained($0) }
        self.metadata = metadata
        self.flusher = flusher
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

    /// Hands the buffered rows to the flusher, to be written as a row group
    /// in the background (nothing when there are none); the next rows go to
    /// the other set of columns.
    ///
    /// - Throws: `RecordingError` when the output cannot be opened, or a
    ///   row group written before could not be (its output, or zstd, failed).
    func flushRowGroup() throws(RecordingError) {
        guard bufferedRows > 0 else { return }
        // The row group in flight (of any file) is written first: the other columns are free again.
        try flusher.waitUntilIdle()
        let sink = try openedSink()
        let full = columns
        let next = otherColumns ?? full.map { $0.emptyCopy() }
        columns = next
        unretainedColumns = next.map { Unmanaged.passUnretained($0) }
        otherColumns = full
        let rows = bufferedRows
        writtenRows += Int64(rows)
        bufferedRows = 0
        let job = RowGroupJob(writer: self, columns: full, rows: rows, sink: sink)
        try flusher.submit { () throws(RecordingError) in try job.run() }
    }

    /// A full row group on its way to the output: what the flusher's job touches.
    ///
    /// `@unchecked Sendable`: the writer does not touch the columns, its
    /// output, its offset or its row groups until the flusher is idle.
    private struct RowGroupJob: @unchecked Sendable {
        let writer: ParquetFileWriter
        let columns: [ParquetColumnWriter]
        let rows: Int
        let sink: any ByteSink

        func run() throws(RecordingError) { try writer.writeRowGroup(columns, rows: rows, to: sink) }
    }

    /// Compresses and writes a row group's column chunks (on the flusher's queue), then empties the columns.
    private func writeRowGroup(
        _ columns: [ParquetColumnWriter], rows: Int, to sink: any ByteSink
    ) throws(RecordingError) {
        let start = offset
        let pages = try compressedPages(columns)
        var chunks: [ColumnChunk] = []
        chunks.reserveCapacity(columns.count)
        for (column, page) in zip(columns, pages) {
            chunks.append(try writeChunk(column, page: page, to: sink))
            column.reset()
        }
        rowGroups.append(RowGroup(columns: chunks, rowCount: Int64(rows), fileOffset: start))
    }

    /// Writes the last row group and the footer, and closes the output.
    ///
    /// - Throws: `RecordingError` when the output cannot be written.
    func finish() throws(RecordingError) {
        guard !finished else { return }
        try flushRowGroup()
        try flusher.waitUntilIdle()
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
        /// The values' encoding: 0 PLAIN, 5 DELTA_BINARY_PACKED, 8 RLE_DICTIONARY, 9 BYTE_STREAM_SPLIT.
        var encoding: Int32 = 0
        /// A dictionary column's dictionary page: its values, uncompressed size and zstd frame.
        var dictionary: (count: Int, uncompressedSize: Int, bytes: [UInt8])?
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
        /// How many columns of `order` are taken.
        private let taken = Locked(0)
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
            taken.withLock { taken in
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
                    slots[index].bytes = try RecordingError.mcap({ () throws(MCAPError) in
                        try compressor.compress(raw) { Array($0) }
                    })
                }
                do throws(RecordingError) {
                    if let (page, count) = column.dictionaryPage() {
                        var bytes: [UInt8] = []
                        func compressDictionary(_ raw: UnsafeRawBufferPointer) throws(RecordingError) {
                            bytes = try RecordingError.mcap({ () throws(MCAPError) in
                                try compressor.compress(raw) { Array($0) }
                            })
                        }
                        try page.withBytes(compressDictionary)
                        slots[index].dictionary = (count, page.count, bytes)
                    }
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
    /// as many threads as the flusher has compressors, so a row group's zstd
    /// work is spread over the cores; the bytes are the same as compressing
    /// them one by one.
    private func compressedPages(_ columns: [ParquetColumnWriter]) throws(RecordingError) -> [CompressedPage] {
        let job = PageCompression(columns: columns, compressors: flusher.compressors)
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
        var dictionaryOffset: Int64?
        var dictionarySizes = (uncompressed: 0, compressed: 0)
        if let dictionary = page.dictionary {
            dictionaryOffset = offset
            let header = Self.dictionaryPageHeader(
                uncompressedSize: dictionary.uncompressedSize, compressedSize: dictionary.bytes.count,
                valueCount: dictionary.count)
            try sink.write(header)
            try sink.write(dictionary.bytes)
            offset += Int64(header.count + dictionary.bytes.count)
            dictionarySizes = (header.count + dictionary.uncompressedSize, header.count + dictionary.bytes.count)
        }
        let pageOffset = offset
        let header = Self.pageHeader(
            uncompressedSize: page.uncompressedSize, compressedSize: page.bytes.count, valueCount: column.entryCount,
            encoding: page.encoding)
        try sink.write(header)
        try sink.write(page.bytes)
        offset += Int64(header.count + page.bytes.count)
        // Both sizes count the page header, as the format defines them.
        return ColumnChunk(
            numValues: Int64(column.entryCount),
            uncompressedSize: Int64(dictionarySizes.uncompressed + header.count + page.uncompressedSize),
            compressedSize: Int64(dictionarySizes.compressed + header.count + page.bytes.count),
            dataPageOffset: pageOffset, dictionaryPageOffset: dictionaryOffset, encoding: page.encoding,
            statistics: column.statistics())
    }

    /// A dictionary page header: `valueCount` distinct values, PLAIN.
    static func dictionaryPageHeader(uncompressedSize: Int, compressedSize: Int, valueCount: Int) -> [UInt8] {
        var thrift = ThriftCompactWriter()
        thrift.i32(1, 2)  // type: DICTIONARY_PAGE
        thrift.i32(2, Int32(clamping: uncompressedSize))
        thrift.i32(3, Int32(clamping: compressedSize))
        thrift.beginStruct(7)  // dictionary_page_header
        thrift.i32(1, Int32(clamping: valueCount))
        thrift.i32(2, 0)  // encoding: PLAIN
        thrift.endStruct()
        thrift.stop()
        return thrift.bytes
    }

    /// A data page (v1) header: values in `encoding` (0 PLAIN, 5 DELTA_BINARY_PACKED, 9 BYTE_STREAM_SPLIT), RLE levels.
    static func pageHeader(uncompressedSize: Int, compressedSize: Int, valueCount: Int, encoding: Int32 = 0) -> [UInt8]
    {
        var thrift = ThriftCompactWriter()
        thrift.i32(1, 0)  // type: DATA_PAGE
        thrift.i32(2, Int32(clamping: uncompressedSize))
        thrift.i32(3, Int32(clamping: compressedSize))
        thrift.beginStruct(5)  // data_page_header
        thrift.i32(1, Int32(clamping: valueCount))
        thrift.i32(2, encoding)  // encoding: PLAIN, DELTA_BINARY_PACKED or BYTE_STREAM_SPLIT
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
            thrift.i64(2, chunk.dictionaryPageOffset ?? chunk.dataPageOffset)  // file_offset: where the chunk starts
            thrift.beginStruct(3)  // meta_data
            thrift.i32(1, column.type.physicalType)
            // The values' encodings (a dictionary's PLAIN first), RLE (levels).
            let encodings: [Int32] =
                column.isList ? [0, 3] : chunk.dictionaryPageOffset != nil ? [0, chunk.encoding] : [chunk.encoding]
            thrift.beginList(2, of: .i32, count: encodings.count)
            for encoding in encodings { thrift.listI32(encoding) }
            thrift.beginList(3, of: .binary, count: column.path.count)
            for part in column.path { thrift.listString(part) }
            thrift.i32(4, 6)  // codec: ZSTD
            thrift.i64(5, chunk.numValues)
            thrift.i64(6, chunk.uncompressedSize)
            thrift.i64(7, chunk.compressedSize)
            thrift.i64(9, chunk.dataPageOffset)
            if let dictionaryOffset = chunk.dictionaryPageOffset { thrift.i64(11, dictionaryOffset) }
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
