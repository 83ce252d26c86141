import ROS2

/// Loss records inside the segments: the stream `/tlm/loss` (schema
/// `tlm/msg/LossRecord`), so a segment alone says what it is missing — any
/// MCAP tool shows it, and `recover` rebuilds the index's loss rows from it.
package enum LossRecordMessage {
    /// The topic loss records are written on.
    package static let topic = "/tlm/loss"

    /// The schema.
    package static let schema = MessageSchema(
        name: "tlm/msg/LossRecord",
        text: """
            # Data that did not make it into the recording: how many elements of which stream, when, and why.
            # stream is the topic, or empty for the whole session (for example the ingest buffer).
            string stream
            uint64 time
            uint64 count
            string reason
            # How long the gap lasted (a disconnect, a bluetoothd restart); 0 for counted drops.
            uint64 duration_ns
            """)

    package static func encode(
        stream: String?, time: UInt64, count: Int, reason: String, duration: UInt64? = nil
    ) -> [UInt8] {
        var cdr = CDRWriter(capacity: 72 + reason.utf8.count)
        cdr.write(stream ?? "")
        cdr.write(time)
        cdr.write(UInt64(count))
        cdr.write(reason)
        cdr.write(duration ?? 0)
        return cdr.bytes
    }

    /// Decodes a loss record; `duration` is `nil` for counted drops and in
    /// recordings made before the field existed (it is the last field).
    package static func decode(
        _ payload: [UInt8]
    )
        -> (stream: String?, time: UInt64, count: UInt64, reason: String, duration: UInt64?)?
    {
        guard var reader = CDRReader(payload), let stream = reader.string(), let time = reader.uint64(),
            let count = reader.uint64(), let reason = reader.string()
        else { return nil }
        let duration = reader.uint64().flatMap { $0 == 0 ? nil : $0 }
        return (stream.isEmpty ? nil : stream, time, count, reason, duration)
    }
}
