import Recording

/// The buckets of one stream's aggregate query between the first one not
/// yet handed out and the latest one a read chunk reached.
///
/// Chunks are read in the order of their first time, so once a chunk starts
/// in bucket `b` no chunk still to read can reach a bucket before `b`: those
/// are handed out, in order, and forgotten. What the window holds is bounded
/// by the buckets one chunk's messages fall in, whatever the number of
/// buckets of the query.
struct BucketWindow<Tally> {
    /// The buckets.
    let grid: BucketGrid
    /// An empty bucket's tally.
    let empty: Tally
    /// The first bucket not handed out.
    private(set) var next = 0
    private var held: [Int: Tally] = [:]

    init(grid: BucketGrid, empty: Tally) {
        self.grid = grid
        self.empty = empty
    }

    /// Hands out every bucket before `index` not handed out yet, in order
    /// (one never updated as ``empty``).
    mutating func handOut(
        before index: Int, _ body: (_ index: Int, _ tally: Tally) throws(RecordingError) -> Void
    ) throws(RecordingError) {
        let end = min(index, grid.count)
        while next < end {
            let tally = held.isEmpty ? empty : held.removeValue(forKey: next) ?? empty
            let index = next
            next += 1
            try body(index, tally)
        }
    }

    /// Changes bucket `index`; `false`, changing nothing, when it was handed out already.
    mutating func update(_ index: Int, _ change: (inout Tally) -> Void) -> Bool {
        guard index >= next else { return false }
        let empty = empty
        change(&held[index, default: empty])
        return true
    }

    /// The error of a message that falls in a bucket already handed out:
    /// the index's first time of its chunk is later than the message (or, in
    /// sample time, the stream's times went back).
    static func misplaced(_ topic: String, time: UInt64) -> RecordingError {
        RecordingError(
            .index,
            "\(topic): a message at \(time) comes before its chunk's first time in the index "
                + "(the index is wrong: `tlm verify`, `tlm recover`)")
    }
}

/// The order chunks of a stream are read in by a streamed aggregate: by
/// their first time in the range (`from` for one that starts before it),
/// ties in file order.
func chunkOrder(_ rows: [ChunkStatisticsRow], from: UInt64) -> [Int] {
    rows.indices.sorted { (max(from, rows[$0].firstTime), $0) < (max(from, rows[$1].firstTime), $1) }
}
