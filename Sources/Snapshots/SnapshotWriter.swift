import MCAP
public import Recording

/// Writes one snapshot: the messages of a `SnapshotRing`'s contents that
/// fall in a window, as a complete recording of its own (segments, index,
/// `metadata.yaml`: a ROS 2 bag that verifies), through an ordinary
/// `Recorder`. It holds, in this order: the last message before the window
/// of every latched stream (the device's state, at its own log time), a loss
/// record when the window reaches back past what the ring still held, every
/// message with `window.start <= log time <= window.end` in the order it was
/// recorded (loss records as loss records), and a marker per trigger on
/// `/tlm/marker`. The session's metadata names the window and the triggers
/// (`snapshot.*` keys).
public struct SnapshotWriter: Sendable {
    /// The recorded session the snapshot comes from.
    public var session: Recorder.Session
    /// Chunk, compression and durability settings of the snapshot.
    public var configuration: RecorderConfiguration

    /// Where segment bytes go; `nil` for files (tests put a failing disk here).
    package var storage: (any SegmentStorage)?

    /// Creates a writer.
    public init(session: Recorder.Session, configuration: RecorderConfiguration) {
        self.session = session
        self.configuration = configuration
    }

    /// What a written snapshot holds.
    public struct Written: Sendable, Hashable {
        /// The snapshot's directory.
        public var directory: String
        /// Messages written (latched state, window, markers and loss records).
        public var messageCount: Int
        /// Log time of the window's first message (`nil`: none).
        public var firstTime: UInt64?
        /// Log time of the window's last message (`nil`: none).
        public var lastTime: UInt64?
    }

    /// Writes the snapshot of `window` from `contents` into the new `directory`.
    ///
    /// - Throws: `RecordingError` if the directory exists with content, a
    ///   ring chunk is damaged, or a write fails (disk full: the partial
    ///   snapshot is left to `tlm recover`).
    public func write(
        _ contents: SnapshotRing.Contents, window: SnapshotWindow, into directory: String
    ) throws(RecordingError) -> Written {
        var facts = session.metadata
        facts["snapshot.window_start_ns"] = String(window.start)
        facts["snapshot.window_end_ns"] = String(window.end)
        facts["snapshot.triggers"] = String(window.triggers.count)
        if let first = window.triggers.first {
            facts["snapshot.trigger"] = first.source.rawValue
            facts["snapshot.reason"] = first.reason
            facts["snapshot.triggered_at_ns"] = String(first.time)
            if let value = first.value { facts["snapshot.value"] = String(value) }
        }
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: Recorder.Session(
                name: String(directory.split(separator: "/").last ?? "snapshot"), source: session.source,
                host: session.host, seed: session.seed, metadata: facts),
            // The session spans the window (the latched state before it is state, not session).
            startTime: window.start, storage: storage ?? POSIXSegmentStorage())
        var count = 0
        var first: UInt64?
        var last: UInt64?
        do throws(RecordingError) {
            var devices: [Int64: DeviceHandle] = [:]
            for device in contents.devices {
                devices[device.handle.id] = try recorder.addDevice(
                    family: device.handle.family, identifier: device.handle.identifier, name: device.name,
                    metadata: device.metadata)
            }
            // Streams in channel order (loss records and markers are the recorder's own).
            var handles: [UInt16: (StreamHandle, valueOffset: Int?)] = [:]
            for (channelID, descriptor) in contents.streams.sorted(by: { $0.key < $1.key })
            where descriptor.topic != LossRecordMessage.topic && descriptor.topic != MarkerMessage.topic {
                var copy = descriptor
                copy.device = descriptor.device.flatMap { devices[$0.id] }
                let offset = descriptor.isNumeric ? NumericSchemas.valueOffset(schemaText: descriptor.schema.text) : nil
                handles[channelID] = (try recorder.addStream(copy), offset)
            }
            let lossChannels = Set(contents.streams.filter { $0.value.topic == LossRecordMessage.topic }.keys)
            let markerChannels = Set(contents.streams.filter { $0.value.topic == MarkerMessage.topic }.keys)

            func write(
                channelID: UInt16, logTime: UInt64, publishTime: UInt64, payload: [UInt8]
            )
                throws(RecordingError)
            {
                if lossChannels.contains(channelID) {
                    guard let loss = LossRecordMessage.decode(payload) else { return }
                    let stream = loss.stream.flatMap { recorder.registeredStream(topic: $0) }
                    try recorder.recordLoss(
                        stream: stream, time: loss.time, count: Int(clamping: loss.count), reason: loss.reason,
                        duration: loss.duration.map { .nanoseconds(Int64(clamping: $0)) })
                } else if markerChannels.contains(channelID) {
                    guard let marker = MarkerMessage.decode(payload) else { return }
                    try recorder.recordMarker(
                        time: logTime, source: marker.source, note: marker.note, value: marker.value)
                } else if let (handle, offset) = handles[channelID] {
                    try recorder.write(
                        handle, logTime: logTime, publishTime: publishTime, payload: payload,
                        numericValue: offset.flatMap { NumericSchemas.value(at: $0, payload: payload) })
                } else {
                    return
                }
                count += 1
            }

            // The latched state from before the window: evicted, then held.
            var latched: [UInt16: SnapshotRing.LatchedMessage] = [:]
            for message in contents.latched where message.logTime < window.start {
                latched[message.channelID] = message
            }
            let latchedChannels = Set(contents.streams.filter { $0.value.isLatched }.keys)
            for chunk in contents.chunks
            where chunk.startTime < window.start && !latchedChannels.isDisjoint(with: chunk.channelIDs) {
                for message in try SnapshotRing.messages(in: chunk)
                where message.logTime < window.start && latchedChannels.contains(message.channelID) {
                    latched[message.channelID] = .init(
                        channelID: message.channelID, logTime: message.logTime, publishTime: message.publishTime,
                        payload: message.data)
                }
            }
            for message in latched.values.sorted(by: { $0.logTime < $1.logTime }) {
                try write(
                    channelID: message.channelID, logTime: message.logTime, publishTime: message.publishTime,
                    payload: message.payload)
            }
            if let evicted = contents.evictedUntil, window.start <= evicted {
                try recorder.recordLoss(
                    stream: nil, time: window.start, count: 0,
                    reason: "before the snapshot ring's start: evicted to keep its bound",
                    duration: .nanoseconds(Int64(clamping: evicted - window.start + 1)))
                count += 1
            }
            // The window, a chunk at a time (memory holds one chunk's messages).
            var markers = window.triggers.sorted { $0.time < $1.time }[...]
            for chunk in contents.chunks where chunk.endTime >= window.start && chunk.startTime <= window.end {
                for message in try SnapshotRing.messages(in: chunk)
                where message.logTime >= window.start && message.logTime <= window.end {
                    while let marker = markers.first, marker.time <= message.logTime {
                        try mark(marker, in: recorder)
                        count += 1
                        markers.removeFirst()
                    }
                    try write(
                        channelID: message.channelID, logTime: message.logTime, publishTime: message.publishTime,
                        payload: message.data)
                    if first == nil { first = message.logTime }
                    last = message.logTime
                }
            }
            for marker in markers {
                try mark(marker, in: recorder)
                count += 1
            }
            try recorder.close(at: window.end)
        } catch {
            try? recorder.close(at: window.end)
            throw error
        }
        return Written(directory: directory, messageCount: count, firstTime: first, lastTime: last)
    }

    private func mark(_ trigger: SnapshotTrigger, in recorder: Recorder) throws(RecordingError) {
        try recorder.recordMarker(
            time: trigger.time, source: trigger.source.rawValue, note: "snapshot: \(trigger.reason)",
            value: trigger.value)
    }
}
