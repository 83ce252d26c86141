import ROS2

/// Markers inside the segments: the stream `/tlm/marker` (schema
/// `tlm/msg/Marker`), one message per marker — a key pressed, a D-Bus call,
/// a snapshot's trigger — so any MCAP tool shows where something happened.
package enum MarkerMessage {
    /// The topic markers are written on.
    package static let topic = "/tlm/marker"

    /// The schema.
    package static let schema = MessageSchema(
        name: "tlm/msg/Marker",
        text: """
            # Something worth finding later, at the message's log time.
            # note: free text (first: tools label the mark with it); source: what made it
            # (key, dbus, signal, pipeline, api).
            string note
            string source
            # The value that fired a pipeline trigger; NaN for none.
            float64 value
            """)

    package static func encode(source: String, note: String, value: Double?) -> [UInt8] {
        var cdr = CDRWriter(capacity: 32 + source.utf8.count + note.utf8.count)
        cdr.write(note)
        cdr.write(source)
        cdr.write(value ?? .nan)
        return cdr.bytes
    }

    /// Decodes a marker; `value` is `nil` for NaN.
    package static func decode(_ payload: [UInt8]) -> (source: String, note: String, value: Double?)? {
        guard var reader = CDRReader(payload), let note = reader.string(), let source = reader.string(),
            let value = reader.float64()
        else { return nil }
        return (source, note, value.isNaN ? nil : value)
    }
}
