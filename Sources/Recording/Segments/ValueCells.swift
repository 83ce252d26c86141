/// One numeric stream's values in one chunk, summarized per cell of a global
/// time grid finer than the chunk: count, minimum, maximum and sum per cell.
///
/// Cell `k` covers log times `k << shift ..< (k + 1) << shift` (nanoseconds
/// since the Unix epoch), so cells of every chunk and stream line up, and a
/// plot whose column edges are multiples of `1 << shift` merges whole cells
/// without decoding the chunk. The index stores them packed
/// (``packed``) in `chunk_stream_cells` (schema v6).
package struct ValueCells: Sendable, Hashable {
    /// Bytes per cell in ``packed``: count (UInt32), minimum, maximum and sum
    /// (Float64), little-endian.
    package static let cellSize = 28

    /// Each cell is `1 << shift` nanoseconds wide.
    package var shift: Int
    /// The first cell's number (its start time `>> shift`).
    package var firstCell: UInt64
    /// Values per cell (0 for an empty cell between two filled ones).
    package var counts: [UInt32]
    /// The smallest value per cell (meaningless where the count is 0).
    package var minimums: [Double]
    /// The largest value per cell.
    package var maximums: [Double]
    /// The sum of the values per cell.
    package var sums: [Double]

    /// The number of cells.
    package var count: Int { counts.count }

    /// Creates cells from their columns (all of equal length).
    package init(
        shift: Int, firstCell: UInt64, counts: [UInt32], minimums: [Double], maximums: [Double], sums: [Double]
    ) {
        self.shift = shift
        self.firstCell = firstCell
        self.counts = counts
        self.minimums = minimums
        self.maximums = maximums
        self.sums = sums
    }

    /// Reads cells from their packed form.
    ///
    /// - Throws: ``RecordingError`` (`.index`) when the shift is out of range
    ///   or the length is not a whole number of cells.
    package init(shift: Int, firstCell: UInt64, packed: [UInt8]) throws(RecordingError) {
        guard (0..<64).contains(shift), packed.count % Self.cellSize == 0 else {
            throw RecordingError(
                .index, "chunk_stream_cells: shift \(shift) or length \(packed.count) is not a valid cell array")
        }
        let count = packed.count / Self.cellSize
        var counts = [UInt32](repeating: 0, count: count)
        var minimums = [Double](repeating: 0, count: count)
        var maximums = [Double](repeating: 0, count: count)
        var sums = [Double](repeating: 0, count: count)
        packed.withUnsafeBytes { bytes in
            for index in 0..<count {
                let base = index * Self.cellSize
                counts[index] = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: base, as: UInt32.self))
                func double(_ at: Int) -> Double {
                    Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
                }
                minimums[index] = double(base + 4)
                maximums[index] = double(base + 12)
                sums[index] = double(base + 20)
            }
        }
        self.init(
            shift: shift, firstCell: firstCell, counts: counts, minimums: minimums, maximums: maximums, sums: sums)
    }

    /// The cells as the index stores them: ``cellSize`` bytes per cell.
    package var packed: [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(count * Self.cellSize)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        for index in 0..<count {
            append(counts[index])
            append(minimums[index].bitPattern)
            append(maximums[index].bitPattern)
            append(sums[index].bitPattern)
        }
        return bytes
    }

    /// The cells of `values` (`(logTime, value)` pairs, NaN skipped), as the
    /// writer accumulates them: for the index rebuild.
    package static func of<S: Sequence<(UInt64, Double)>>(_ values: S) -> ValueCells? {
        var accumulator = ValueCellAccumulator()
        for (time, value) in values where !value.isNaN { accumulator.add(time: time, value: value) }
        return accumulator.cells()
    }
}
