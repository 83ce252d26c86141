/// Loss records inside the segments: the stream `/tlm/loss` (schema
/// `tlm/msg/LossRecord`), so a segment alone says what it is missing — any
/// MCAP tool shows it, and `recover` rebuilds the index's loss rows from it.
enum LossRecordMessage {
    /// The topic loss records are written on.
    static let topic = "/tlm/loss"

    /// The schema.
    static let schema = MessageSchema(name: "tlm/msg/LossRecord", text: """
        # Data that did not make it into the recording: how many elements of which stream, when, and why.
        # stream is the topic, or empty for the whole session (for example the ingest buffer).
        string stream
        uint64 time
        uint64 count
        string reason
        """)

    static func encode(stream: String?, time: UInt64, count: Int, reason: String) -> [UInt8] {
        var cdr = CDRWriter(capacity: 64 + reason.utf8.count)
        cdr.write(stream ?? "")
        cdr.write(time)
        cdr.write(UInt64(count))
        cdr.write(reason)
        return cdr.bytes
    }

    static func decode(_ payload: [UInt8]) -> (stream: String?, time: UInt64, count: UInt64, reason: String)? {
        guard var reader = CDRReader(payload), let stream = reader.string(), let time = reader.uint64(),
              let count = reader.uint64(), let reason = reader.string()
        else { return nil }
        return (stream.isEmpty ? nil : stream, time, count, reason)
    }
}
