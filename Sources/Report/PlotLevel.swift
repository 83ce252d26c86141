/// One level of detail of a numeric stream's plot: the stream's values
/// summarized per time column (count, minimum, maximum and mean), columns of
/// equal width starting at ``start``.
public struct PlotLevel: Sendable, Hashable {
    /// The first column's start, nanoseconds since the Unix epoch.
    public var start: UInt64
    /// Each column's width in nanoseconds.
    public var width: UInt64
    /// Values per column.
    public var counts: [Int]
    /// The smallest value per column (`nan` where a column is empty).
    public var minimums: [Double]
    /// The largest value per column (`nan` where a column is empty).
    public var maximums: [Double]
    /// The mean per column (`nan` where a column is empty).
    public var means: [Double]

    /// The number of columns.
    public var columnCount: Int { counts.count }

    /// The number of columns that hold a value.
    public var filledColumnCount: Int { counts.reduce(0) { $0 + ($1 > 0 ? 1 : 0) } }

    /// Whether `finer` (the same range in narrower columns) shows more than
    /// this level: its values fill at least 5 % more columns. (Values at
    /// one instant, or a short burst, fill no more columns however fine:
    /// they do not pull in a level, and the band of their column still spans
    /// their minimum and maximum.)
    public func isRefined(by finer: PlotLevel) -> Bool {
        finer.filledColumnCount * 20 >= filledColumnCount * 21
    }

    /// Creates a level from its columns.
    public init(
        start: UInt64, width: UInt64, counts: [Int], minimums: [Double], maximums: [Double], means: [Double]
    ) {
        self.start = start
        self.width = width
        self.counts = counts
        self.minimums = minimums
        self.maximums = maximums
        self.means = means
    }

    /// The level `factor` times coarser: each column merges `factor`
    /// consecutive columns (the last one fewer), exactly.
    public func merged(by factor: Int) -> PlotLevel {
        precondition(factor > 0)
        let columns = (columnCount + factor - 1) / factor
        var result = PlotLevel(
            start: start, width: width * UInt64(factor), counts: [Int](repeating: 0, count: columns),
            minimums: [Double](repeating: .nan, count: columns), maximums: [Double](repeating: .nan, count: columns),
            means: [Double](repeating: .nan, count: columns))
        for column in 0..<columns {
            var count = 0
            var low = Double.infinity
            var high = -Double.infinity
            var sum = 0.0
            for source in column * factor..<min(columnCount, (column + 1) * factor) where counts[source] > 0 {
                count += counts[source]
                low = min(low, minimums[source])
                high = max(high, maximums[source])
                sum += means[source] * Double(counts[source])
            }
            guard count > 0 else { continue }
            result.counts[column] = count
            result.minimums[column] = low
            result.maximums[column] = high
            result.means[column] = sum / Double(count)
        }
        return result
    }
}
