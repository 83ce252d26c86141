/// Messages handed out one at a time, in log-time order (equal times in file
/// order): a recording's ``RecordedMessageIterator``, a lone MCAP file's
/// cursor (``MCAPFileReader/messageCursor(topics:from:to:)``), or either
/// through ``RecordingSource``.
///
/// ```swift
/// let cursor = try RecordingSource(path: "ride.mcap").messageCursor(topics: ["/diot/9F3A0C11/acc_x"])
/// while let message = try cursor.next() { print(message.logTime) }
/// ```
public protocol RecordedMessageCursor: AnyObject {
    /// The next message, or `nil` after the last.
    ///
    /// - Throws: ``RecordingError`` when a chunk cannot be read or is corrupt.
    func next() throws(RecordingError) -> RecordedMessage?
}

extension RecordedMessageIterator: RecordedMessageCursor {}
