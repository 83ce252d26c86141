package import MCAP

/// The messages of a lone MCAP file in log-time order: chunks are taken in
/// order of their start time and read only once the merge reaches it, so
/// only chunks that overlap in time are held at once (see ``MCAPFileReader``).
package final class MCAPFileMessageCursor: RecordedMessageCursor {
    /// An open chunk's wanted messages, sorted, and how many were handed out.
    private struct OpenChunk {
        var messages: [RecordedMessage]
        var position = 0
        let rank: Int
        var head: RecordedMessage { messages[position] }
    }

    private let reader: MCAPFileReader
    private let chunks: [(index: MCAPRecord.ChunkIndex, rank: Int)]
    private var nextChunk = 0
    private let wanted: Set<UInt16>
    private let lower: UInt64
    private let upper: UInt64
    private var open: [OpenChunk] = []

    package init(
        reader: MCAPFileReader, chunks: [(MCAPRecord.ChunkIndex, Int)], wanted: Set<UInt16>, from: UInt64,
        to: UInt64
    ) {
        self.reader = reader
        self.chunks = chunks.map { (index: $0.0, rank: $0.1) }.sorted {
            (max(from, $0.index.messageStartTime), $0.rank) < (max(from, $1.index.messageStartTime), $1.rank)
        }
        self.wanted = wanted
        self.lower = from
        self.upper = to
    }

    package func next() throws(RecordingError) -> RecordedMessage? {
        while nextChunk < chunks.count {
            let start = max(lower, chunks[nextChunk].index.messageStartTime)
            guard open.isEmpty || start <= earliest().head.logTime else { break }
            try read(chunks[nextChunk])
            nextChunk += 1
        }
        guard !open.isEmpty else { return nil }
        let position = earliestPosition()
        let message = open[position].head
        open[position].position += 1
        if open[position].position == open[position].messages.count { open.remove(at: position) }
        return message
    }

    private func earliest() -> OpenChunk { open[earliestPosition()] }

    /// The open chunk whose next message comes first (time, then file order).
    private func earliestPosition() -> Int {
        var best = 0
        for candidate in open.indices.dropFirst() {
            let a = open[candidate]
            let b = open[best]
            if (a.head.logTime, a.rank) < (b.head.logTime, b.rank) { best = candidate }
        }
        return best
    }

    private func read(_ chunk: (index: MCAPRecord.ChunkIndex, rank: Int)) throws(RecordingError) {
        var messages: [RecordedMessage] = []
        for record in try reader.messages(in: chunk.index)
        where wanted.contains(record.channelID) && record.logTime >= lower && record.logTime < upper {
            guard let topic = reader.topic(ofChannel: record.channelID) else { continue }
            messages.append(
                RecordedMessage(
                    topic: topic, sequence: record.sequence, logTime: record.logTime,
                    publishTime: record.publishTime, payload: record.data))
        }
        guard !messages.isEmpty else { return }
        // Stable: equal times keep their file order.
        messages = messages.enumerated()
            .sorted { ($0.element.logTime, $0.offset) < ($1.element.logTime, $1.offset) }
            .map(\.element)
        open.append(OpenChunk(messages: messages, rank: chunk.rank))
    }
}
