/// Consecutive messages of a fast streaming read
/// (``RecordingReader/forEachMessageRun(topics:from:to:workers:_:)``), all
/// from one decompressed chunk, in the order the read hands them out: the
/// scanned fields of each message and the chunk's bytes their payloads lie
/// in. Valid only during the call that receives it.
///
/// A receiver that works per message takes ``subscript(_:)`` (a
/// ``RecordedMessageView``); one that works per column can take the entries
/// and bytes as they are, with no view made per message.
package struct RecordedMessageRun {
    /// The messages' fields and where their payloads lie in ``bytes``.
    package var entries: UnsafeBufferPointer<ChunkPrefetcher.Entry>
    /// The chunk's decompressed records.
    package var bytes: UnsafeRawBufferPointer
    /// The topics of the read's channels.
    package var topics: [UInt16: String]

    /// The number of messages.
    package var count: Int { entries.count }

    /// The topic of a channel of the read (empty when the reader does not know it).
    package func topic(ofChannel channelID: UInt16) -> String { topics[channelID] ?? "" }

    /// The payload of the message at `index`.
    @inline(__always)
    package func payload(_ index: Int) -> UnsafeRawBufferPointer {
        let entry = entries[index]
        return UnsafeRawBufferPointer(rebasing: bytes[entry.start..<(entry.start + entry.count)])
    }

    /// The message at `index` as a view.
    package subscript(index: Int) -> RecordedMessageView {
        let entry = entries[index]
        return RecordedMessageView(
            topic: topic(ofChannel: entry.channelID), channelID: entry.channelID, sequence: entry.sequence,
            logTime: entry.logTime, publishTime: entry.publishTime, payload: payload(index))
    }
}
