/// Builds one chunk's ``ValueCells`` of one numeric stream as values arrive:
/// the open cell's statistics are kept in scalars and merged into the cell
/// arrays only when a value falls in another cell, so an in-order value
/// costs one shift, one compare and the min/max/sum update.
///
/// Cells start `1 << initialShift` ns wide and are merged in pairs (the shift
/// grows by one) whenever the chunk's values would span more than
/// ``maximumCells`` cells; ``cells()`` then merges further down to one cell
/// per ``valuesPerCell`` values, so the index holds under a byte per value
/// (28-byte cells; 0.86 for a 1 kHz stream in 1 s chunks, whose cells are
/// 2^25 ns, 34 ms, wide).
package struct ValueCellAccumulator {
    /// The most cells a chunk keeps.
    package static let maximumCells = 64
    /// Values per cell the finished cells aim at (at least).
    package static let valuesPerCell = 32
    /// The finest cell, 2^16 ns (65.5 µs).
    package static let finestShift = 16

    private(set) var shift: Int
    private var firstCell: UInt64 = 0
    private var counts: [UInt32] = []
    private var minimums: [Double] = []
    private var maximums: [Double] = []
    private var sums: [Double] = []
    /// The open cell's number, count, minimum, maximum and sum.
    private var current = UInt64.max
    private var count: UInt32 = 0
    private var low = Double.infinity
    private var high = -Double.infinity
    private var sum = 0.0
    private var valueCount = 0

    /// Starts with cells `1 << shift` ns wide (the previous chunk's final
    /// shift less one suits a steady stream: at most one merge per chunk).
    package init(shift: Int = 20) {
        self.shift = max(Self.finestShift, min(62, shift))
    }

    /// The shift the next chunk of the same stream starts with.
    package var nextShift: Int { max(Self.finestShift, shift - 1) }

    /// Adds a value (not NaN).
    @inline(__always) package mutating func add(time: UInt64, value: Double) {
        if time >> UInt64(shift) != current {
            flush()
            current = time >> UInt64(shift)
        }
        count &+= 1
        low = Swift.min(low, value)
        high = Swift.max(high, value)
        sum += value
        valueCount += 1
    }

    /// The finished cells: `nil` when there are fewer than 2 values (the
    /// chunk's own statistics say everything).
    package func cells() -> ValueCells? {
        var copy = self
        copy.flush()
        guard copy.valueCount >= 2, !copy.counts.isEmpty else { return nil }
        let target = Swift.min(Self.maximumCells, Swift.max(2, copy.valueCount / Self.valuesPerCell))
        while copy.counts.count > target { copy.coarsen() }
        return ValueCells(
            shift: copy.shift, firstCell: copy.firstCell, counts: copy.counts, minimums: copy.minimums,
            maximums: copy.maximums, sums: copy.sums)
    }

    /// Merges the open cell into the arrays (widening the cells until the
    /// chunk's cells fit in ``maximumCells``).
    private mutating func flush() {
        guard count > 0 else { return }
        var cell = current
        if counts.isEmpty {
            firstCell = cell
            append(empty: 1)
        } else {
            while Swift.max(firstCell + UInt64(counts.count - 1), cell) - Swift.min(firstCell, cell)
                >= UInt64(Self.maximumCells)
            {
                coarsen()
                cell >>= 1
            }
            if cell < firstCell {
                let missing = Int(firstCell - cell)
                counts.insert(contentsOf: repeatElement(0, count: missing), at: 0)
                minimums.insert(contentsOf: repeatElement(.infinity, count: missing), at: 0)
                maximums.insert(contentsOf: repeatElement(-.infinity, count: missing), at: 0)
                sums.insert(contentsOf: repeatElement(0, count: missing), at: 0)
                firstCell = cell
            } else if cell - firstCell >= UInt64(counts.count) {
                append(empty: Int(cell - firstCell) - counts.count + 1)
            }
        }
        let index = Int(cell - firstCell)
        counts[index] += count
        minimums[index] = Swift.min(minimums[index], low)
        maximums[index] = Swift.max(maximums[index], high)
        sums[index] += sum
        count = 0
        low = .infinity
        high = -.infinity
        sum = 0
    }

    private mutating func append(empty: Int) {
        counts.append(contentsOf: repeatElement(0, count: empty))
        minimums.append(contentsOf: repeatElement(.infinity, count: empty))
        maximums.append(contentsOf: repeatElement(-.infinity, count: empty))
        sums.append(contentsOf: repeatElement(0, count: empty))
    }

    /// Merges cells in pairs: twice as wide, still on the global grid.
    private mutating func coarsen() {
        let first = firstCell >> 1
        let last = (firstCell + UInt64(counts.count - 1)) >> 1
        let merged = Int(last - first) + 1
        var newCounts = [UInt32](repeating: 0, count: merged)
        var newMinimums = [Double](repeating: .infinity, count: merged)
        var newMaximums = [Double](repeating: -.infinity, count: merged)
        var newSums = [Double](repeating: 0, count: merged)
        for index in counts.indices {
            let target = Int((firstCell + UInt64(index)) >> 1 - first)
            newCounts[target] += counts[index]
            newMinimums[target] = Swift.min(newMinimums[target], minimums[index])
            newMaximums[target] = Swift.max(newMaximums[target], maximums[index])
            newSums[target] += sums[index]
        }
        counts = newCounts
        minimums = newMinimums
        maximums = newMaximums
        sums = newSums
        firstCell = first
        shift += 1
        if current != .max { current >>= 1 }
    }
}
