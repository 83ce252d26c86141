/// Finds a topic's last message before a start time from the chunks that may
/// hold it, reading as few as it can: the chunks come ordered by the latest
/// log time before the start they may hold (their `bound`: the smaller of
/// their last time and `start - 1`), highest first, then by file order,
/// last first; the search stops at the first chunk whose bound cannot beat
/// the message found. Chunks that do not overlap read one chunk.
///
/// The last message is the one with the greatest log time below the start;
/// of equal times, the last in file order (segment, chunk, position).
package enum LastMessageSearch {
    /// The last message with `logTime < start` in `candidates`.
    ///
    /// - Parameters:
    ///   - candidates: The chunks that may hold the topic before `start`,
    ///     ordered by `bound` (highest first), then file order (last first).
    ///   - start: The start time; only messages before it count.
    ///   - bound: The latest log time below `start` a candidate may hold.
    ///   - read: The topic's messages in a candidate, in file order.
    /// - Throws: What `read` throws.
    package static func last<Candidate>(
        in candidates: some Sequence<Candidate>, before start: UInt64, bound: (Candidate) -> UInt64,
        read: (Candidate) throws(RecordingError) -> [RecordedMessage]
    ) throws(RecordingError) -> RecordedMessage? {
        var best: RecordedMessage?
        for candidate in candidates {
            // Ordered by bound: no later candidate holds a later message (an equal
            // time there comes earlier in file order, and the later one wins).
            if let found = best, bound(candidate) <= found.logTime { break }
            var inChunk: RecordedMessage?
            for message in try read(candidate) where message.logTime < start {
                if inChunk.map({ message.logTime >= $0.logTime }) ?? true { inChunk = message }
            }
            if let inChunk, best.map({ inChunk.logTime > $0.logTime }) ?? true { best = inChunk }
        }
        return best
    }
}
