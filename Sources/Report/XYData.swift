/// Two fields of typed streams against each other (`tlm plot --xy accel_x,accel_y`): each stream's
/// messages as points binned on a grid of ``XYData/cells`` × ``XYData/cells`` over the fields' ranges,
/// so the plot's size follows the grid, not the number of messages.
public struct XYData: Sendable, Hashable {
    /// One stream's points: the grid cells its messages fall in, with how many fall in each.
    public struct Stream: Sendable, Hashable {
        /// The stream's topic.
        public var topic: String
        /// Messages with both fields finite.
        public var count: Int
        /// The occupied cells, column (x) and row (y, from the bottom), and their counts, by column then row.
        public var cells: [Cell]
    }

    /// An occupied grid cell.
    public struct Cell: Sendable, Hashable {
        public var column: Int
        public var row: Int
        public var count: Int
    }

    /// The grid's cells per side.
    public static let cells = 400

    /// The recording's session name, for the title.
    public var session: String
    /// The range read, nanoseconds since the Unix epoch (`to` exclusive).
    public var from: UInt64
    public var to: UInt64
    /// The fields on the x and y axes.
    public var xField: String
    public var yField: String
    /// The unit of the streams' values, when they have one.
    public var unit: String?
    /// The smallest and largest x and y of every stream (equal ends widened by one on each side).
    public var xRange: ClosedRange<Double>
    public var yRange: ClosedRange<Double>
    /// The streams that have both fields, sorted by topic.
    public var streams: [Stream]
}
