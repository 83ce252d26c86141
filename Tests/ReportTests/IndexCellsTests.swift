import Foundation
import Recording
import RecordingQueries
import RecordingRepair
import Testing

@testable import Report

/// The index's per-cell statistics (``ValueCells``, schema v6): what the
/// writer and the rebuild store, and plots drawn from them without decoding.
@Suite struct IndexCellsTests {
    /// Count, minimum, maximum and sum per cell of `1 << shift` ns, by brute force.
    static func expectedCells(
        _ values: [(UInt64, Double)], shift: Int
    ) -> [UInt64: (count: UInt32, minimum: Double, maximum: Double, sum: Double)] {
        var cells: [UInt64: (count: UInt32, minimum: Double, maximum: Double, sum: Double)] = [:]
        for (time, value) in values {
            let cell = time >> UInt64(shift)
            let old = cells[cell] ?? (0, .infinity, -.infinity, 0)
            cells[cell] = (old.count + 1, min(old.minimum, value), max(old.maximum, value), old.sum + value)
        }
        return cells
    }

    @Test func cellsHoldEachGridCellsCountMinimumMaximumAndSumWhateverTheOrderOfTimes() throws {
        // 3,000 values over 1.5 s, a quarter of them out of order, with a 20 s gap: the cells
        // widen until the chunk fits in 64, then to about one per 32 values.
        var generator = SystemRandomNumberGenerator()
        let base: UInt64 = 1_800_000_000_123_456_789
        var values: [(UInt64, Double)] = (0..<3000).map { index in
            (base + UInt64(index) * 500_000, Double(index % 97) - 40.5)
        }
        values.append((base + 21_000_000_000, 1e6))
        values.append((base + 21_000_000_001, .nan))
        for index in stride(from: 0, to: 3000, by: 4) {
            values.swapAt(index, Int.random(in: 0..<3000, using: &generator))
        }
        let cells = try #require(ValueCells.of(values))
        #expect(cells.count <= 64)
        #expect(cells.count >= 2)
        let finite = values.filter { !$0.1.isNaN }
        let expected = Self.expectedCells(finite, shift: cells.shift)
        #expect(cells.counts.reduce(0) { $0 + Int($1) } == finite.count)
        // The shift is the finest at which the values span at most 64 cells.
        let firstCell = finite.map { $0.0 >> UInt64(cells.shift) }.min()!
        let lastCell = finite.map { $0.0 >> UInt64(cells.shift) }.max()!
        #expect(cells.firstCell == firstCell)
        #expect(cells.count == Int(lastCell - firstCell) + 1)
        #expect(
            (finite.map { $0.0 >> UInt64(cells.shift - 1) }.max()! - finite.map { $0.0 >> UInt64(cells.shift - 1) }
                .min()!) >= 64)
        for index in 0..<cells.count {
            let cell = cells.firstCell + UInt64(index)
            guard let want = expected[cell] else {
                #expect(cells.counts[index] == 0)
                continue
            }
            #expect(cells.counts[index] == want.count)
            #expect(cells.minimums[index] == want.minimum)
            #expect(cells.maximums[index] == want.maximum)
            #expect(abs(cells.sums[index] - want.sum) < 1e-6)
        }
        // The index's packed form reads back the same; a truncated one is an error.
        let packed = cells.packed
        #expect(packed.count == cells.count * ValueCells.cellSize)
        #expect(try ValueCells(shift: cells.shift, firstCell: cells.firstCell, packed: packed) == cells)
        #expect(throws: RecordingError.self) {
            try ValueCells(shift: cells.shift, firstCell: cells.firstCell, packed: Array(packed.dropLast()))
        }
        #expect(throws: RecordingError.self) {
            try ValueCells(shift: 64, firstCell: cells.firstCell, packed: packed)
        }
        // Fewer than two values: the chunk's own statistics say it all.
        #expect(ValueCells.of([(base, 1.0)]) == nil)
        #expect(ValueCells.of([(base, Double.nan), (base + 1, .nan)]) == nil)
    }

    @Test func steadyStreamCellsAreAbout32ValuesWide() throws {
        // 1 kHz for one second: 2^25 ns cells (34 ms), 30 of them.
        let values = (0..<1000).map { (UInt64(1_800_000_000_000_000_000) + UInt64($0) * 1_000_000, Double($0)) }
        let cells = try #require(ValueCells.of(values))
        #expect(cells.shift == 25)
        #expect(cells.count <= 31)
    }

    @Test func alignedColumnsAreCloseToTheAskedCountAndOnThePowerOfTwoGrid() {
        let from: UInt64 = 1_800_000_000_123_456_789
        for span: UInt64 in [7, 1_000, 123_456_789, 10_000_000_000, 36_000_000_000_000] {
            for columns in [1, 2048, 32768] {
                let (origin, width) = RecordingReader.alignedColumns(from: from, to: from + span, columns: columns)
                let ideal = (span + UInt64(columns) - 1) / UInt64(columns)
                #expect(origin <= from && from - origin < width)
                #expect(width >= ideal && width <= ideal + ideal / 4 + 1, "\(span) \(columns): \(width) for \(ideal)")
                if ideal >= 4 {
                    let unit = UInt64(1) << (63 - (ideal / 4).leadingZeroBitCount)
                    #expect(width % unit == 0 && origin % unit == 0)
                }
            }
        }
    }

    /// About `columns` aligned columns over the whole recording, and what reading them cost.
    static func level(
        _ directory: String, columns: Int = 128
    ) throws -> (columns: ColumnAggregates, cost: AggregateCost) {
        let reader = try RecordingReader(directory: directory)
        let info = try RecordingInfo.load(from: directory)
        let stream = try #require(info.streams.first { $0.topic == "/sim/D1/value" })
        let from = try #require(stream.firstTime)
        let to = try #require(stream.lastTime) + 1
        let (origin, width) = RecordingReader.alignedColumns(from: from, to: to, columns: columns)
        return try reader.columnAggregates(topic: "/sim/D1/value", from: from, to: to, width: width, origin: origin)
    }

    static func sqlite(_ path: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func aReportDecodesNoChunkWithCellsAndTheSameLevelsWithoutThem() throws {
        // 60,000 samples at 2 kHz in 16 KiB chunks (a few hundred values, ~0.2 s each; cells of
        // 2^25 ns) in columns of ~0.23 s: nearly every chunk straddles a column edge. (Columns
        // narrower than a chunk's cells, ~32 values, are decoded: at most ~1M values' worth of
        // chunks for the finest of a report's levels, whatever the recording's size.)
        let recording = try ReportTestRecording(seconds: 30, rate: 2000)
        let (columns, cost) = try Self.level(recording.directory)
        #expect(cost.chunksDecoded == 0, "\(cost)")
        #expect(cost.chunksFromStatistics > 50)
        var counts = [Int](repeating: 0, count: columns.counts.count)
        var minimums = [Double](repeating: .infinity, count: counts.count)
        var maximums = [Double](repeating: -.infinity, count: counts.count)
        for (time, value) in recording.values {
            let column = Int((time - columns.start) / columns.width)
            counts[column] += 1
            minimums[column] = min(minimums[column], value)
            maximums[column] = max(maximums[column], value)
        }
        #expect(columns.counts == counts)
        for column in counts.indices where counts[column] > 0 {
            #expect(columns.minimums[column] == minimums[column])
            #expect(columns.maximums[column] == maximums[column])
        }

        // An index from before schema v6 (no cells): the same columns, by decoding.
        try Self.sqlite(
            recording.directory + "/index.sqlite",
            "DROP TABLE chunk_stream_cells; DELETE FROM grdb_migrations WHERE identifier = 'v6';")
        let (old, oldCost) = try Self.level(recording.directory)
        #expect(oldCost.chunksDecoded > 50, "\(oldCost)")
        #expect(old.counts == columns.counts)
        #expect(old.minimums.map(\.bitPattern) == columns.minimums.map(\.bitPattern))
        #expect(old.maximums.map(\.bitPattern) == columns.maximums.map(\.bitPattern))
        for column in counts.indices { #expect(abs(old.sums[column] - columns.sums[column]) < 1e-6) }
        let builder = try ReportBuilder(directory: recording.directory)
        let series = try #require(try builder.build(topics: ["/sim/D1/value"]).series.first)
        #expect(series.count == recording.values.count)
        #expect(series.levels.count == 3)

        // Rebuilding the index from the segments (recover) brings the cells back.
        try FileManager.default.removeItem(atPath: recording.directory + "/index.sqlite")
        _ = try RecordingRecovery.recover(directory: recording.directory)
        let (rebuilt, rebuiltCost) = try Self.level(recording.directory)
        #expect(rebuiltCost.chunksDecoded == 0, "\(rebuiltCost)")
        #expect(rebuilt.counts == columns.counts)
        #expect(rebuilt.minimums.map(\.bitPattern) == columns.minimums.map(\.bitPattern))
        #expect(rebuilt.maximums.map(\.bitPattern) == columns.maximums.map(\.bitPattern))
    }
}
