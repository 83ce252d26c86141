package import ROS2
package import Recording

/// How the messages of one topic print as JSON lines, worked out once: the
/// keys of the `fields` object sorted and escaped, each with the field it
/// shows (the last of that name), and the topic escaped. Writes the bytes
/// ``JSONLinesExporter/line(logTime:publishTime:topic:fields:)`` returns
/// (and a line break) into a ``TextBuffer``, without a `String` or a
/// dictionary per message. A class, so that looking one up per message
/// copies one reference, not its arrays.
package final class JSONLineLayout {
    /// Each key's `"name":` bytes, in key order, and the index of the field it shows.
    /// Every key's text (`"name":`), one after another, in key order.
    private let keyText: [UInt8]
    /// Per key, in key order: where its text lies in ``keyText`` and the index of its field.
    private let keys: [(start: Int, count: Int, field: Int)]
    /// The field names, in schema order.
    private let names: [String]
    /// The topic.
    private let topic: String
    /// `,"topic":"..."}` and the line break.
    private let ending: [UInt8]

    /// The layout of messages of `topic` whose decoded fields have these names, in this order.
    package init(topic: String, names: [String]) {
        self.topic = topic
        self.names = names
        var last: [String: Int] = [:]
        for (index, name) in names.enumerated() { last[name] = index }
        var text: [UInt8] = []
        var keys: [(start: Int, count: Int, field: Int)] = []
        for (name, index) in last.sorted(by: { $0.key < $1.key }) {
            let key = Array((JSONString.quoted(name) + ":").utf8)
            keys.append((text.count, key.count, index))
            text += key
        }
        self.keyText = text
        self.keys = keys
        ending = Array((",\"topic\":" + JSONString.quoted(topic) + "}\n").utf8)
    }

    /// The layout of a topic's messages, decoded by `definition`.
    package convenience init(topic: String, definition: ROS2MessageDefinition) {
        self.init(topic: topic, names: definition.fields.map(\.name))
    }

    /// Appends a message's JSON line, its line break included.
    ///
    /// - Parameters:
    ///   - logTime: The message's log time.
    ///   - publishTime: Its publish time.
    ///   - fields: Its fields, decoded by the topic's schema.
    ///   - buffer: Where the line goes.
    package func append(
        logTime: UInt64, publishTime: UInt64, fields: [(name: String, value: CDRValue)], to buffer: TextBuffer
    ) throws(RecordingError) {
        guard fields.count == names.count, names.indices.allSatisfy({ fields[$0].name == names[$0] }) else {
            // Not the schema's fields: the general form.
            buffer.append(
                try JSONLinesExporter.line(logTime: logTime, publishTime: publishTime, topic: topic, fields: fields))
            buffer.append(byte: 0x0A)
            return
        }
        appendLine(logTime: logTime, publishTime: publishTime, to: buffer) { fields[$0].value }
    }

    /// Appends the JSON line of a message whose field values, in schema
    /// order, `definition` (the topic's) decoded: as
    /// ``append(logTime:publishTime:fields:to:)``, without the names.
    package func append(logTime: UInt64, publishTime: UInt64, values: [CDRValue], to buffer: TextBuffer) {
        appendLine(logTime: logTime, publishTime: publishTime, to: buffer) { values[$0] }
    }

    /// The line, the value of the field with an index from `value`.
    @inline(__always)
    private func appendLine(
        logTime: UInt64, publishTime: UInt64, to buffer: TextBuffer, value: (Int) -> CDRValue
    ) {
        buffer.append("{\"fields\":{")
        keyText.withUnsafeBytes { text in
            for (position, key) in keys.enumerated() {
                if position > 0 { buffer.append(byte: 0x2C) }
                buffer.append(UnsafeRawBufferPointer(rebasing: text[key.start..<(key.start + key.count)]))
                buffer.append(tidyJSON: value(key.field))
            }
        }
        buffer.append("},\"log_time\":")
        buffer.append(decimal: logTime)
        buffer.append(",\"publish_time\":")
        buffer.append(decimal: publishTime)
        buffer.append(ending)
    }
}
