import Foundation
import MCAP
import TestSupport
import Testing

@testable import Recording
@testable import RecordingExport

/// How the Parquet writer makes its pages: float and double columns
/// BYTE_STREAM_SPLIT (undone here by a decoder written from the format's
/// description), DELTA_BINARY_PACKED given up once it cannot halve the
/// values, and row groups written in the background with their errors
/// still reaching the export.
@Suite struct ParquetPageEncodingTests {
    /// Undoes BYTE_STREAM_SPLIT: stream `k` holds byte `k` of every value.
    static func unsplit(_ page: [UInt8], width: Int) -> [UInt64] {
        let count = page.count / width
        return (0..<count).map { index in
            (0..<width).reduce(UInt64(0)) { value, byte in value | UInt64(page[byte * count + index]) << (8 * byte) }
        }
    }

    static let doubles: [Double] = [
        0, -0.0, 1, -1.5, .nan, -.infinity, .infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        Double(Float(0.0031)), 1e-300, -7.25e12,
    ]

    @Test func doubleAndFloatPagesAreByteStreamSplitBitForBit() {
        let double = ParquetColumnWriter(name: "v", type: .double)
        for value in Self.doubles { double.appendDouble(value.bitPattern) }
        double.appendDoubles(count: 1_000) { (Double($0) * 0.37 - 100).bitPattern }
        let (page, encoding) = double.pageBody()
        #expect(encoding == 9)
        let expected = Self.doubles.map(\.bitPattern) + (0..<1_000).map { (Double($0) * 0.37 - 100).bitPattern }
        #expect(page.map { Self.unsplit($0, width: 8) } == expected)
        // The split itself: the first stream is every value's lowest byte.
        #expect(page.map { Array($0.prefix(3)) } == [0, 0, 0])
        #expect(page?[expected.count * 7 + 1] == 0x80)  // -0.0's sign byte, in the last stream

        let float = ParquetColumnWriter(name: "f", type: .float)
        let floats: [Float] = [0, -0.0, .nan, .infinity, -3.4e38, .leastNonzeroMagnitude, 1.25]
        for value in floats { float.appendFloat(value.bitPattern) }
        let (floatPage, floatEncoding) = float.pageBody()
        #expect(floatEncoding == 9)
        #expect(floatPage.map { Self.unsplit($0, width: 4) } == floats.map { UInt64($0.bitPattern) })

        // An empty page, and a list of doubles (levels first: PLAIN values).
        let empty = ParquetColumnWriter(name: "e", type: .double)
        #expect(empty.pageBody().bytes == [] && empty.pageBody().encoding == 9)
        let list = ParquetColumnWriter(name: "l", type: .double, isList: true)
        list.appendListElementLevels(first: true)
        list.appendDouble(2.5.bitPattern)
        #expect(list.pageBody().encoding == 0)
        // Statistics are the values', not the split bytes'.
        let statistics = double.statistics()
        #expect(statistics.minimum == withUnsafeBytes(of: (-Double.infinity).bitPattern.littleEndian) { Array($0) })
        #expect(statistics.maximum == withUnsafeBytes(of: Double.infinity.bitPattern.littleEndian) { Array($0) })
    }

    @Test(arguments: [4, 8])
    func deltaEncodingGivesUpPastItsLimitAndIsExactWithin(width: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<4_000).map { _ in Int64(Int32.random(in: .min ... .max, using: &generator)) }
        let even = (0..<4_000).map { Int64($0) * 3 }
        for values in [noise, even] {
            let plain = ParquetDeltaEncodingTests.plain(values, width: width)
            plain.withUnsafeBytes { plain in
                let full = ParquetDeltaEncoder.encode(plain, width: width)
                #expect(ParquetDeltaEncoder.encode(plain, width: width, limit: full.count) == full)
                #expect(ParquetDeltaEncoder.encode(plain, width: width, limit: full.count - 1) == nil)
                let half = ParquetDeltaEncoder.encode(plain, width: width, limit: plain.count / 2)
                #expect((half != nil) == (full.count <= plain.count / 2))
            }
        }
        // Noise does not halve: the column stays PLAIN; an even step does: DELTA_BINARY_PACKED.
        for (values, encoding) in [(noise, Int32(0)), (even, Int32(5))] {
            let column = ParquetColumnWriter(
                name: "n", type: width == 8 ? .int64(signed: true) : .int32(bitWidth: 32, signed: true))
            for value in values {
                if width == 8 {
                    column.appendInt64(UInt64(bitPattern: value))
                } else {
                    column.appendInt32(UInt32(truncatingIfNeeded: value))
                }
            }
            let (page, chosen) = column.pageBody()
            #expect(chosen == encoding)
            if chosen == 5, let page {
                #expect(try ParquetDeltaEncodingTests.decode(page, width: width) == values)
            }
        }
    }

    /// Values that step evenly (wrapping in the type's width too) take the
    /// shortcut, which gives exactly the full encoding; others are refused.
    @Test(arguments: [4, 8])
    func anEvenStepIsTheFullEncodingWithoutPacking(width: Int) throws {
        let top = width == 8 ? Int64.max : Int64(Int32.max)
        let cases: [[Int64]] = [
            [7, 7], [1, 2], (0..<129).map { $0 }, (0..<1_000).map { 1_700_000_000 - $0 * 1_000_003 },
            (0..<300).map { top &- 100 &+ $0 },  // wraps past the largest value
            (0..<257).map { $0 &* (top / 200) },  // a large step, wrapping past the largest value
        ]
        for values in cases {
            let wrapped = values.map { width == 8 ? $0 : Int64(Int32(truncatingIfNeeded: $0)) }
            let plain = ParquetDeltaEncodingTests.plain(wrapped, width: width)
            try plain.withUnsafeBytes { plain in
                let shortcut = try #require(ParquetDeltaEncoder.encodeEvenStep(of: plain, width: width))
                #expect(shortcut == ParquetDeltaEncoder.encode(plain, width: width), "\(values.prefix(3))")
                #expect(try ParquetDeltaEncodingTests.decode(shortcut, width: width) == wrapped)
            }
        }
        for values: [Int64] in [[1, 2, 4], (0..<600).map { $0 == 599 ? 0 : $0 }, [5, 6, 7, 9]] {
            ParquetDeltaEncodingTests.plain(values, width: width).withUnsafeBytes { plain in
                #expect(ParquetDeltaEncoder.encodeEvenStep(of: plain, width: width) == nil)
            }
        }
        // Fewer than two values: what the full encoding gives.
        for values: [Int64] in [[], [42]] {
            ParquetDeltaEncodingTests.plain(values, width: width).withUnsafeBytes { plain in
                #expect(
                    ParquetDeltaEncoder.encodeEvenStep(of: plain, width: width)
                        == ParquetDeltaEncoder.encode(plain, width: width))
            }
        }
    }

    /// A sink that takes `room` bytes, then fails every write.
    final class FailingSink: ByteSink {
        var room: Int
        init(room: Int) { self.room = room }
        func write(_ bytes: UnsafeRawBufferPointer) throws(RecordingError) {
            guard bytes.count <= room else { throw RecordingError(.io, "disk full (test)") }
            room -= bytes.count
        }
        func close() throws(RecordingError) {}
    }

    /// A row group written in the background that fails makes the next
    /// flush, and the file's end, throw its error; nothing hangs.
    @Test func aFailedBackgroundWriteIsThrownByTheNextFlushAndTheEnd() throws {
        let flusher = ParquetRowGroupFlusher(compressors: [try ZstdCompressor(level: 3)])
        let writer = ParquetFileWriter(
            columns: [ParquetColumnWriter(name: "v", type: .double)], metadata: [], flusher: flusher
        ) { () throws(RecordingError) -> any ByteSink in FailingSink(room: 100) }
        func fill(_ rows: Int) {
            writer.columns[0].appendDoubles(count: rows) { Double($0).bitPattern }
            writer.endRows(rows)
        }
        fill(1_000)
        try writer.flushRowGroup()  // handed over: its write fails in the background
        fill(10)
        let next = #expect(throws: RecordingError.self) { try writer.flushRowGroup() }
        #expect(next?.code == .io && next?.message == "disk full (test)")
        let end = #expect(throws: RecordingError.self) { try writer.finish() }
        #expect(end?.message == "disk full (test)")
        // The flusher stays failed: another file's row group is refused too.
        let other = ParquetFileWriter(
            columns: [ParquetColumnWriter(name: "v", type: .double)], metadata: [], flusher: flusher
        ) { () throws(RecordingError) -> any ByteSink in MemoryByteSink() }
        other.columns[0].appendDouble(1.0.bitPattern)
        other.endRow()
        #expect(throws: RecordingError.self) { try other.finish() }
    }

    /// Row groups of several files handed over in turns (one in flight at a
    /// time) come out whole and in order: pyarrow, DuckDB and polars read
    /// every file's values back as they were appended.
    @Test func rowGroupsOfInterleavedFilesAreWrittenInOrder() throws {
        let flusher = ParquetRowGroupFlusher(
            compressors: [try ZstdCompressor(level: 3), try ZstdCompressor(level: 3)])
        let directory = makeTemporaryDirectory("parquetinterleaved")
        let writers = (0..<3).map { index in
            ParquetFileWriter(
                columns: [
                    ParquetColumnWriter(name: "t", type: .int64(signed: false)),
                    ParquetColumnWriter(name: "v", type: .double),
                ], metadata: [], flusher: flusher
            ) { () throws(RecordingError) -> any ByteSink in
                try FileByteSink(creating: directory + "/file_\(index).parquet")
            }
        }
        var expected: [[(UInt64, Double)]] = [[], [], []]
        for group in 0..<12 {
            let writer = writers[group % 3]
            let first = UInt64(group) * 1_000
            let rows = 500 + group * 37
            writer.columns[0].appendInt64s(count: rows) { first + UInt64($0) }
            writer.columns[1].appendDoubles(count: rows) { (Double(first) + Double($0) / 8).bitPattern }
            writer.endRows(rows)
            expected[group % 3] += (0..<rows).map { (first + UInt64($0), Double(first) + Double($0) / 8) }
            try writer.flushRowGroup()
        }
        for writer in writers { try writer.finish() }

        let data = try runPython(script: "read_parquet.py", arguments: [directory])
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let files = try #require(json["files"] as? [String: [String: Any]])
        #expect(files.count == 3)
        for (index, rows) in expected.enumerated() {
            let file = try #require(files["file_\(index).parquet"])
            for readerName in ["pyarrow", "duckdb", "polars"] {
                let result = try #require(file[readerName] as? [String: Any])
                let columns = try #require(result["columns"] as? [String: [Any]])
                #expect(columns["t"] as? [String] == rows.map { "i\($0.0)" }, "\(readerName) file \(index)")
                #expect(
                    columns["v"] as? [String] == rows.map { "d" + ParquetExportTests.hex($0.1.bitPattern) },
                    "\(readerName) file \(index)")
            }
            let arrow = try #require(file["pyarrow"] as? [String: Any])
            #expect(arrow["row_groups"] as? Int == 4)
        }
    }

    /// A dictionary column of 300 distinct strings (9-bit indices, two bytes
    /// per RLE run value) in runs and single rows over two row groups, and two
    /// such files concatenated into one: pyarrow, DuckDB and polars read
    /// every value back as it was appended, in order.
    @Test func dictionaryColumnsAndConcatenatedFilesReadBackExactly() throws {
        let flusher = ParquetRowGroupFlusher(compressors: [try ZstdCompressor(level: 3)])
        let directory = makeTemporaryDirectory("parquetdictionary")
        let parts = makeTemporaryDirectory("parquetdictionaryparts")
        let values = (0..<300).map { Array("value-\($0 * 7919 % 1000)".utf8) }
        var expected: [[String]] = [[], []]
        for index in 0..<2 {
            let writer = ParquetFileWriter(
                columns: [
                    ParquetColumnWriter(name: "s", type: .string, dictionary: true),
                    ParquetColumnWriter(name: "n", type: .int64(signed: true)),
                ], metadata: [("tlm.recording", "part-\(index)")], flusher: flusher
            ) { () throws(RecordingError) -> any ByteSink in
                try FileByteSink(creating: parts + "/part_\(index).parquet")
            }
            for group in 0..<2 {
                var rows = 0
                for (number, value) in values.enumerated() {
                    // Runs of 1 to 4 rows, single rows and runs taking turns.
                    let count = (number + group + index) % 4 + 1
                    value.withUnsafeBytes { bytes in
                        if count == 1 {
                            writer.columns[0].appendBytes(bytes)
                        } else {
                            writer.columns[0].appendRepeated(bytes, count: count)
                        }
                    }
                    writer.columns[1].appendInt64s(count: count) { _ in UInt64(number) }
                    expected[index] += Array(repeating: "s" + String(decoding: value, as: UTF8.self), count: count)
                    rows += count
                }
                writer.endRows(rows)
                try writer.flushRowGroup()
            }
            try writer.finish()
            try FileManager.default.copyItem(
                atPath: parts + "/part_\(index).parquet", toPath: directory + "/part_\(index).parquet")
        }
        let rows = try ParquetConcatenation.concatenate(
            [parts + "/part_0.parquet", parts + "/part_1.parquet"], to: directory + "/merged.parquet")
        #expect(rows == Int64(expected[0].count + expected[1].count))
        let data = try runPython(script: "read_parquet.py", arguments: [directory])
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let files = try #require(json["files"] as? [String: [String: Any]])
        let cases = [
            ("part_0.parquet", expected[0]), ("part_1.parquet", expected[1]),
            ("merged.parquet", expected[0] + expected[1]),
        ]
        for (name, strings) in cases {
            let file = try #require(files[name], "\(name)")
            for readerName in ["pyarrow", "duckdb", "polars"] {
                let result = try #require(file[readerName] as? [String: Any])
                let columns = try #require(result["columns"] as? [String: [Any]])
                #expect(columns["s"] as? [String] == strings, "\(readerName) \(name)")
                #expect(columns["n"]?.count == strings.count, "\(readerName) \(name)")
            }
            let arrow = try #require(file["pyarrow"] as? [String: Any])
            #expect(arrow["row_groups"] as? Int == (name == "merged.parquet" ? 4 : 2), "\(name)")
            if name == "merged.parquet" {
                let metadata = try #require(arrow["metadata"] as? [String: String])
                #expect(metadata["tlm.recordings"] == "part-0,part-1")
                #expect(metadata["tlm.recording"] == nil)
            }
        }
    }
}
