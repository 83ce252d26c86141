public import Devices
import Foundation
import GRDB
import MCAP
import Quantities
package import ROS2

/// Records streams into a recording directory: MCAP segments
/// (`000001.mcap`, …) and the catalog `index.sqlite`. The directory is also a
/// ROS 2 bag: every segment has profile `ros2`, every channel rosbag2's
/// `offered_qos_profiles` (durability `transient_local` for a latched stream,
/// ``StreamDescriptor/isLatched``, else `volatile`), and its `metadata.yaml` is written again each
/// time a segment closes.
///
/// A recorder is owned by one task (it is not `Sendable`); feed it from a
/// single consumer loop. Each closed chunk is compressed and written to its
/// segment by the segment's pipeline thread (and with the default
/// ``Durability/chunk``, synced to stable storage), then committed to the
/// index in one transaction, so a crash loses at most the open chunk and the
/// sealed ones not yet written (three at most); with ``Durability/batch``
/// a segment's chunks are committed when it closes, synced. The commits run
/// on the index's own queue, in order, not on the task that writes
/// messages; ``closeChunkIfDue(now:)`` and ``close(at:)`` return once they
/// are in, and a commit that failed is thrown by the next one or by
/// ``close(at:)``. Call ``close(at:)`` to close the open chunk and segment.
///
/// ```swift
/// let recorder = try Recorder(directory: "ride", session: .init(name: "ride", source: "simulate"))
/// let speed = try recorder.addStream(StreamDescriptor(
///     topic: "/comodule/SCOOT_01/speed", kind: .typed, schema: schema, isNumeric: true))
/// try recorder.write(speed, logTime: now, payload: cdrBytes, numericValue: 21.5)
/// try recorder.close(at: now)
/// ```
public final class Recorder {
    /// Facts about the session, stored in the index and as MCAP Metadata.
    public struct Session: Sendable, Hashable {
        /// A name for the session.
        public var name: String
        /// Where packets come from: `simulate`, `live`, `capture`, `replay`.
        public var source: String
        /// The host's name (defaults to this machine's).
        public var host: String
        /// The simulation seed, if simulated.
        public var seed: UInt64?
        /// Further facts (pipeline, operator, ...).
        public var metadata: [String: String]

        /// Creates session facts.
        public init(
            name: String, source: String, host: String? = nil,
            seed: UInt64? = nil, metadata: [String: String] = [:]
        ) {
            self.name = name
            self.source = source
            self.host = host ?? ProcessInfo.processInfo.hostName
            self.seed = seed
            self.metadata = metadata
        }
    }

    /// The recording directory.
    public let directory: String
    /// The settings in use.
    public let configuration: RecorderConfiguration
    /// Sees each stream as it is registered and each message as it is written
    /// (after the segment took it); `nil` for none. Set it before the first
    /// ``addStream(_:)`` for the observer to see every stream, and not from
    /// within the observer's own callbacks.
    public var observer: (any RecorderObserver)? {
        get { hot.observerBox?.observer }
        set { hot.observerBox = newValue.map(ObserverBox.init) }
    }
    /// The most streams a recording holds (MCAP channel ids are 16 bits; 0 is never used).
    public static let maximumStreamCount = Int(UInt16.max) - 1

    /// The library string written into every segment's Header.
    public static let library = "tlm \(TelemetryRecorderVersion.current)"

    private let index: RecordingIndex
    private let sessionID: Int64
    private let session: Session
    private var streams: [StreamRecord] = []
    /// Each registered topic's place in `streams` (registering many streams stays linear).
    private var streamSlots: [String: Int] = [:]
    private var schemaIDs: [MessageSchema: UInt16] = [:]
    private var devices: [DeviceHandle: [String: String]] = [:]
    /// The open segment (`nil` between segments and once closed).
    private var segment: SegmentWriter? {
        get { hot.segment }
        set { hot.segment = newValue }
    }
    private var segmentRowID: Int64 = 0
    private var segmentSequence = 0
    /// What every write reads and updates, in one struct the recorder
    /// allocates itself: its fields are reached through the pointer, so a
    /// message costs no exclusivity check (a class's stored properties each
    /// cost a dynamic one per access) and no retain of the recorder's state.
    /// The recorder is owned by one task, so nothing accesses it concurrently.
    private let hotStorage: UnsafeMutablePointer<WriteState>
    private var hot: WriteState {
        unsafeAddress { UnsafePointer(hotStorage) }
        unsafeMutableAddress { hotStorage }
    }
    private var closed: Bool {
        get { hot.closed }
        set { hot.closed = newValue }
    }
    private var lossStream: StreamHandle?
    private var markerStream: StreamHandle?
    /// Held from creation to close: `recover` refuses a recording being written.
    private let lock: RecordingLock
    private let chunkAgeNanoseconds: UInt64
    private let segmentDurationNanoseconds: UInt64?
    /// Where segment bytes go.
    private let storage: any SegmentStorage
    /// ``Durability/batch``: chunks of the open segment written but not yet
    /// synced, committed to the index once the segment closes synced.
    private var unsyncedChunks: [ClosedChunk] = []
    /// Ring mode: where closed chunks go instead of segment files and the index.
    private let ring: SnapshotRing?

    /// Creates a recording directory (it must not exist, or be empty) and
    /// starts its session.
    ///
    /// - Throws: ``RecordingError`` if the directory holds anything (or is
    ///   empty text, the root directory or a file), the configuration is
    ///   invalid, or a file cannot be created.
    public convenience init(
        directory: String, configuration: RecorderConfiguration = .init(), session: Session,
        startTime: UInt64 = Recorder.now()
    ) throws(RecordingError) {
        try self.init(
            directory: directory, configuration: configuration, session: session, startTime: startTime,
            storage: POSIXSegmentStorage())
    }

    /// Creates a recording directory whose segment files are written through
    /// `storage` (tests simulate power loss with it). The index is not:
    /// SQLite does its own file I/O and syncing.
    package init(
        directory: String, configuration: RecorderConfiguration = .init(), session: Session,
        startTime: UInt64 = Recorder.now(), storage: any SegmentStorage, ring: SnapshotRing? = nil
    ) throws(RecordingError) {
        try configuration.validate()
        self.ring = ring
        let files = FileManager.default
        try OutputDirectory.checkNew(directory)
        do {
            try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw RecordingError(.io, "cannot create \(directory): \(error.localizedDescription)", cause: error)
        }
        // Durability.chunk and .batch: the recording directory's name is on
        // stable storage before any file in it is.
        if configuration.durability == .chunk || configuration.durability == .batch {
            try storage.syncDirectory(SegmentWriter.directory(of: directory))
        }
        self.lock = try RecordingLock(directory: directory, purpose: "a second recording into it")
        self.directory = directory
        self.configuration = configuration
        self.storage = storage
        self.chunkAgeNanoseconds = configuration.chunkAge.nanosecondsClamped
        self.segmentDurationNanoseconds = configuration.segmentDuration?.nanosecondsClamped
        self.session = session
        self.index = try RecordingIndex(path: directory + "/index.sqlite", syncs: configuration.durability != .none)
        let metadata = Self.json(session.metadata)
        self.sessionID = try index.write { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions (name, source, host, library, seed, started_at, metadata)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    session.name, session.source, session.host, Self.library,
                    session.seed.map { Int64(bitPattern: $0) }, Int64(clamping: startTime), metadata,
                ])
            return db.lastInsertedRowID
        }
        self.hotStorage = .allocate(capacity: 1)
        hotStorage.initialize(to: WriteState())
        try openSegment()
    }

    /// Creates a recorder in ring mode (a flight recorder): its chunks,
    /// compressed as ever, go into `ring` and nowhere else — no segment file
    /// is written and no chunk enters the index. `directory` is its spool:
    /// it holds only the index of the session's devices and streams, and
    /// the lock. A ``SnapshotRing`` snapshot turns the ring into recordings.
    ///
    /// - Throws: ``RecordingError`` as ``init(directory:configuration:session:startTime:)``.
    public convenience init(
        ring: SnapshotRing, directory: String, configuration: RecorderConfiguration = .init(), session: Session,
        startTime: UInt64 = Recorder.now()
    ) throws(RecordingError) {
        var settings = configuration
        settings.durability = .none
        try self.init(
            directory: directory, configuration: settings, session: session, startTime: startTime,
            storage: RingSegmentStorage(ring: ring), ring: ring)
    }

    deinit {
        // A recorder dropped without `close()` (its owner failed) still
        // finishes the commits it queued, of chunks already written, before
        // anyone else opens the index: none of them runs late.
        try? index.waitForQueuedWrites()
        hotStorage.deinitialize(count: 1)
        hotStorage.deallocate()
    }

    /// The host clock: nanoseconds since the Unix epoch.
    public static func now() -> UInt64 { HostClock.now() }

    /// Registers a device of the session.
    public func addDevice(
        family: DeviceFamily, identifier: String, name: String,
        metadata: [String: String] = [:]
    ) throws(RecordingError) -> DeviceHandle {
        try ensureOpen()
        let id = try index.write { db in
            try db.execute(
                sql: "INSERT INTO devices (session_id, family, identifier, name, metadata) VALUES (?, ?, ?, ?, ?)",
                arguments: [sessionID, family.rawValue, identifier, name, Self.json(metadata)])
            return db.lastInsertedRowID
        }
        let handle = DeviceHandle(id: id, family: family, identifier: identifier)
        var facts = metadata
        facts["family"] = family.rawValue
        facts["identifier"] = identifier
        facts["name"] = name
        devices[handle] = facts
        ring?.register(device: handle, name: name, metadata: metadata)
        try segment?.writeMetadata(name: handle.metadataName, facts)
        return handle
    }

    /// The stream registered on `topic`, if any: a device's recorder takes
    /// it rather than register the topic again (a replay registers the
    /// latched streams it begins with before their device's values come).
    package func registeredStream(topic: String) -> StreamHandle? {
        guard let slot = streamSlots[topic] else { return nil }
        let record = streams[slot]
        return StreamHandle(channelID: record.channel.id, streamID: record.streamID, topic: topic)
    }

    /// The device registered as `identifier` of `family`, if any.
    package func device(family: DeviceFamily, identifier: String) -> DeviceHandle? {
        devices.keys.first { $0.family == family && $0.identifier == identifier }
    }

    /// Registers a stream. Its MCAP channel id is the same in every segment.
    ///
    /// - Throws: ``RecordingError`` if the topic is already registered or is
    ///   not a valid ROS 2 topic name (`ROS2Name`).
    public func addStream(_ descriptor: StreamDescriptor) throws(RecordingError) -> StreamHandle {
        try ensureOpen()
        if let violation = ROS2Name.violation(ofTopic: descriptor.topic) {
            throw RecordingError(
                .invalidConfiguration,
                "topic \(String(reflecting: descriptor.topic)) is not a valid ROS 2 topic name: \(violation)")
        }
        guard streams.count < Self.maximumStreamCount else {
            throw RecordingError(.invalidConfiguration, "a recording holds at most \(Self.maximumStreamCount) streams")
        }
        if streamSlots[descriptor.topic] != nil {
            throw RecordingError(.invalidConfiguration, "stream \(descriptor.topic) is already registered")
        }
        let channelID = UInt16(streams.count + 1)
        let schemaID: UInt16
        if let known = schemaIDs[descriptor.schema] {
            schemaID = known
        } else {
            schemaID = UInt16(schemaIDs.count + 1)
            schemaIDs[descriptor.schema] = schemaID
        }
        // One unit vocabulary (UCUM codes): a former spelling is written as its code.
        let unit = UnitCode.canonical(descriptor.unit)
        let streamID = try index.write { db in
            try db.execute(
                sql: """
                    INSERT INTO streams (session_id, device_id, channel_id, topic, kind, schema_name,
                                         schema_encoding, message_encoding, unit, is_numeric, latched)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    sessionID, descriptor.device?.id, Int(channelID), descriptor.topic,
                    descriptor.kind.rawValue, descriptor.schema.name, descriptor.schema.encoding,
                    descriptor.schema.messageEncoding, unit, descriptor.isNumeric, descriptor.isLatched,
                ])
            return db.lastInsertedRowID
        }
        var metadata: [String: String] = ["kind": descriptor.kind.rawValue]
        if let unit { metadata["unit"] = unit }
        metadata["numeric"] = descriptor.isNumeric ? "true" : "false"
        metadata[ROS2BagMetadata.qosKey] = ROS2BagMetadata.offeredQoSProfiles(latched: descriptor.isLatched)
        let channel = SegmentChannel(
            id: channelID, topic: descriptor.topic, schemaID: schemaID,
            schema: descriptor.schema, metadata: metadata)
        streamSlots[descriptor.topic] = streams.count
        streams.append(StreamRecord(descriptor: descriptor, channel: channel, streamID: streamID))
        hot.sequences.append(0)
        hot.streamIDs.append(streamID)
        ring?.register(channelID: channelID, descriptor)
        observer?.recorder(didAddStream: descriptor, channelID: channelID)
        return StreamHandle(channelID: channelID, streamID: streamID, topic: descriptor.topic)
    }

    /// Records one message.
    ///
    /// - Parameters:
    ///   - stream: A stream from ``addStream(_:)``.
    ///   - logTime: Host receive time, nanoseconds since the Unix epoch.
    ///   - publishTime: The sample time (when the device measured it); defaults to `logTime`.
    ///   - payload: The encoded message (CDR for typed streams).
    ///   - numericValue: The value the index keeps statistics of, for numeric streams.
    public func write(
        _ stream: StreamHandle, logTime: UInt64, publishTime: UInt64? = nil,
        payload: UnsafeRawBufferPointer, numericValue: Double? = nil
    ) throws(RecordingError) {
        // The common case first: the stream's topic (a string, retained when
        // read) is only passed on to the general path, for its errors.
        if try appendedToOpenChunk(
            channelID: stream.channelID, streamID: stream.streamID, logTime: logTime,
            publishTime: publishTime ?? logTime, payload: payload, numericValue: numericValue)
        {
            return
        }
        try writeOutsideOpenChunk(
            channelID: stream.channelID, streamID: stream.streamID, topic: stream.topic, logTime: logTime,
            publishTime: publishTime ?? logTime, payload: payload, numericValue: numericValue)
    }

    /// Records one message of the stream with MCAP channel `channelID` and
    /// index row `streamID` (a ``StreamHandle``'s, without copying its topic,
    /// which only an error message reads).
    package func write(
        channelID: UInt16, streamID: Int64, topic: @autoclosure () -> String, logTime: UInt64,
        publishTime: UInt64, payload: UnsafeRawBufferPointer, numericValue: Double?
    ) throws(RecordingError) {
        if try appendedToOpenChunk(
            channelID: channelID, streamID: streamID, logTime: logTime, publishTime: publishTime, payload: payload,
            numericValue: numericValue)
        {
            return
        }
        try writeOutsideOpenChunk(
            channelID: channelID, streamID: streamID, topic: topic(), logTime: logTime, publishTime: publishTime,
            payload: payload, numericValue: numericValue)
    }

    /// The general path of a write, for a message the open chunk did not
    /// take (``appendedToOpenChunk``): opens a segment, closes the chunk or
    /// segment that is due, defines the stream in a new segment, or throws
    /// for a stream the recorder does not know or a closed recording.
    private func writeOutsideOpenChunk(
        channelID: UInt16, streamID: Int64, topic: @autoclosure () -> String, logTime: UInt64,
        publishTime: UInt64, payload: UnsafeRawBufferPointer, numericValue: Double?
    ) throws(RecordingError) {
        let slot = Int(channelID) - 1
        try ensureOpen()
        if segment == nil {
            guard hot.knows(slot: slot, streamID: streamID) else {
                throw RecordingError(
                    .invalidConfiguration, "stream \(topic()) is not registered with this recorder")
            }
            try openSegment()
        }
        var sequence: UInt32 = 0
        admission: while true {
            // Closing a chunk may have closed the segment too (the chunk took it
            // past the size limit): the message goes into the next one.
            if segment == nil { try openSegment() }
            // A segment spans less than the rotation duration of log time; a chunk
            // less than the chunk age.
            switch hot.admit(
                slot: slot, streamID: streamID, logTime: logTime,
                segmentDuration: segmentDurationNanoseconds, chunkAge: chunkAgeNanoseconds)
            {
            case .admitted(let next):
                sequence = next
                break admission
            case .unknownStream:
                throw RecordingError(
                    .invalidConfiguration, "stream \(topic()) is not registered with this recorder")
            case .segmentDue:
                try closeSegment()
                try openSegment()
            case .chunkDue:
                try closeChunk()
            }
        }
        guard let writer = segment else {
            throw RecordingError(.closed, "the segment of \(directory) closed while \(topic()) was written")
        }
        if !writer.isDefined(channelID) { writer.define(streams[slot].channel) }
        try append(
            writer, channelID: channelID, sequence: sequence, logTime: logTime, publishTime: publishTime,
            payload: payload, numericValue: numericValue)
    }

    /// Records one message whose CDR data `encode` writes (it returns the
    /// value the index keeps statistics of, for numeric streams), as
    /// ``write(channelID:streamID:topic:logTime:publishTime:payload:numericValue:)``
    /// does with a payload. In the common case — no observer, the segment
    /// open, the stream defined in it, the message within its chunk and
    /// segment — the message is encoded straight into the open chunk;
    /// otherwise it is encoded apart and written as a payload.
    package func write(
        channelID: UInt16, streamID: Int64, topic: @autoclosure () -> String, logTime: UInt64,
        publishTime: UInt64, encoding encode: (inout CDRWriter) -> Double?
    ) throws(RecordingError) {
        if hot.observerCall == nil,
            let (reference, sequence) = admittedToOpenChunk(channelID: channelID, streamID: streamID, logTime: logTime)
        {
            let appended = reference._withUnsafeGuaranteedRef { writer in
                Result { () throws(RecordingError) -> Bool in
                    try writer.append(
                        channelID: channelID, sequence: sequence, logTime: logTime, publishTime: publishTime,
                        encoding: encode)
                }
            }
            if try appended.get() { try sealed() }
            return
        }
        hot.scratch.reset()
        let numericValue = encode(&hot.scratch)
        try hot.scratch.withPayload { (payload: UnsafeRawBufferPointer) throws(RecordingError) in
            try write(
                channelID: channelID, streamID: streamID, topic: topic(), logTime: logTime,
                publishTime: publishTime, payload: payload, numericValue: numericValue)
        }
    }

    /// Appends the message in the common case (``admittedToOpenChunk``);
    /// `false` leaves it to the general path.
    @inline(__always)
    private func appendedToOpenChunk(
        channelID: UInt16, streamID: Int64, logTime: UInt64, publishTime: UInt64, payload: UnsafeRawBufferPointer,
        numericValue: Double?
    ) throws(RecordingError) -> Bool {
        guard
            let (reference, sequence) = admittedToOpenChunk(channelID: channelID, streamID: streamID, logTime: logTime)
        else { return false }
        let appended = reference._withUnsafeGuaranteedRef { writer in
            Result { () throws(RecordingError) -> Bool in
                try writer.append(
                    channelID: channelID, sequence: sequence, logTime: logTime, publishTime: publishTime,
                    payload: payload, numericValue: numericValue)
            }
        }
        try didAppend(
            filled: appended.get(), channelID: channelID, logTime: logTime, publishTime: publishTime, payload: payload)
        return true
    }

    /// The common case of a write: a segment is open, the stream is defined
    /// in it and the message fits the open chunk and segment. Returns the
    /// segment writer, unretained (`hot.segment` owns it, and nothing
    /// replaces it before the message is in the chunk), and the message's
    /// sequence number; `nil` leaves the message to the general path.
    @inline(__always)
    private func admittedToOpenChunk(
        channelID: UInt16, streamID: Int64, logTime: UInt64
    ) -> (Unmanaged<SegmentWriter>, UInt32)? {
        guard let reference = hot.segmentCall, reference._withUnsafeGuaranteedRef({ $0.isDefined(channelID) }),
            case .admitted(let sequence) = hot.admit(
                slot: Int(channelID) - 1, streamID: streamID, logTime: logTime,
                segmentDuration: segmentDurationNanoseconds, chunkAge: chunkAgeNanoseconds)
        else { return nil }
        return (reference, sequence)
    }

    /// Appends an admitted message to the open segment's chunk, tells the
    /// observer, and commits the chunks it got back.
    @inline(__always)
    private func append(
        _ writer: SegmentWriter, channelID: UInt16, sequence: UInt32, logTime: UInt64, publishTime: UInt64,
        payload: UnsafeRawBufferPointer, numericValue: Double?
    ) throws(RecordingError) {
        let filled = try writer.append(
            channelID: channelID, sequence: sequence, logTime: logTime,
            publishTime: publishTime, payload: payload, numericValue: numericValue)
        try didAppend(
            filled: filled, channelID: channelID, logTime: logTime, publishTime: publishTime, payload: payload)
    }

    /// Tells the observer of a message the open segment took, and commits
    /// the chunks written when the message `filled` its chunk.
    @inline(__always)
    private func didAppend(
        filled: Bool, channelID: UInt16, logTime: UInt64, publishTime: UInt64, payload: UnsafeRawBufferPointer
    ) throws(RecordingError) {
        if let observer = hot.observerCall {
            // Unretained: `hot.observerBox` owns the box, and only the
            // recorder's owner replaces it, never during this call.
            observer._withUnsafeGuaranteedRef {
                $0.observer.recorder(didWrite: channelID, logTime: logTime, publishTime: publishTime, payload: payload)
            }
        }
        if filled { try sealed() }
    }

    /// The message just appended filled its chunk: it was sealed, a new one
    /// starts; commits the chunks written since.
    private func sealed() throws(RecordingError) {
        hot.chunkFirstTime = nil
        guard let writer = segment else { return }
        let written = try writer.harvest()
        if !written.isEmpty { try committed(written) }
    }

    /// Records one message.
    public func write(
        _ stream: StreamHandle, logTime: UInt64, publishTime: UInt64? = nil,
        payload: [UInt8], numericValue: Double? = nil
    ) throws(RecordingError) {
        try payload.withBytes { (raw: UnsafeRawBufferPointer) throws(RecordingError) in
            try write(stream, logTime: logTime, publishTime: publishTime, payload: raw, numericValue: numericValue)
        }
    }

    /// Writes a loss record: `count` elements of `stream` (or of the session,
    /// when `nil`) were lost at `time` for `reason`. It goes into the index and,
    /// as a message on `/tlm/loss`, into the segment.
    ///
    /// A gap in time — a device that disconnected, a Bluetooth daemon that
    /// restarted — passes its `duration` (from `time`); its `count` is what
    /// is known to be missing, often 0 (a live device does not say what it
    /// would have sent). A record with neither a count nor a duration is not
    /// written; a count over 2^46 (more than the index counts) is refused.
    ///
    /// ```swift
    /// try recorder.recordLoss(stream: nil, time: disconnectedAt, count: 0,
    ///                         reason: "disconnected: le-connection-abort-by-local",
    ///                         duration: .milliseconds(850))
    /// ```
    public func recordLoss(
        stream: StreamHandle?, time: UInt64, count: Int, reason: String,
        duration: Duration? = nil
    ) throws(RecordingError) {
        try ensureOpen()
        let nanoseconds = duration.map(Self.nanoseconds)
        guard count > 0 || (nanoseconds ?? 0) > 0 else { return }
        // What the index would refuse to read back is refused before it is written.
        guard count <= IndexRow.maximumCount else {
            throw RecordingError(
                .invalidConfiguration,
                "a loss of \(count) messages is more than a recording counts (at most 2^46); nothing was recorded")
        }
        try index.write { db in
            try db.execute(
                sql: """
                    INSERT INTO losses (session_id, stream_id, topic, time, count, reason, duration_ns)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    sessionID, stream?.streamID, stream?.topic, Int64(clamping: time), count, reason,
                    nanoseconds.map { Int64(clamping: $0) },
                ])
        }
        // And in the segment, on /tlm/loss.
        let losses: StreamHandle
        if let known = lossStream {
            losses = known
        } else {
            losses = try addStream(
                StreamDescriptor(
                    topic: LossRecordMessage.topic, kind: .event,
                    schema: LossRecordMessage.schema))
            lossStream = losses
        }
        try write(
            losses, logTime: time,
            payload: LossRecordMessage.encode(
                stream: stream?.topic, time: time, count: count, reason: reason,
                duration: nanoseconds))
    }

    /// Writes a marker: a message on `/tlm/marker` (schema `tlm/msg/Marker`)
    /// at `time`, saying what made it (`source`: `key`, `dbus`, `signal`,
    /// `pipeline`, …), a `note`, and the value that fired it, if any.
    public func recordMarker(time: UInt64, source: String, note: String, value: Double? = nil) throws(RecordingError) {
        try ensureOpen()
        let markers: StreamHandle
        if let known = markerStream {
            markers = known
        } else if let known = registeredStream(topic: MarkerMessage.topic) {
            markers = known
            markerStream = known
        } else {
            markers = try addStream(
                StreamDescriptor(topic: MarkerMessage.topic, kind: .event, schema: MarkerMessage.schema))
            markerStream = markers
        }
        try write(markers, logTime: time, payload: MarkerMessage.encode(source: source, note: note, value: value))
    }

    /// Whole nanoseconds of a non-negative duration (negative ones are 0).
    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        return UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000).partialValue
            &+ UInt64(attoseconds / 1_000_000_000)
    }

    /// Closes the open chunk if its oldest message is older than the
    /// configured chunk age at `now`, and waits until it is on disk and in
    /// the index; otherwise commits the chunks written since the last call.
    /// Call it on a timer, so a quiet stream's data neither sits in memory
    /// nor stays out of the index.
    public func closeChunkIfDue(now: UInt64) throws(RecordingError) {
        try ensureOpen()
        if let first = hot.chunkFirstTime, now > first, now - first >= chunkAgeNanoseconds, let segment {
            hot.chunkFirstTime = nil
            let written = try segment.closeChunk() + (try segment.drain())
            if !written.isEmpty { try committed(written) }
        } else if let segment {
            // Chunks the pipeline wrote since: into the index.
            let written = try segment.harvest()
            if !written.isEmpty { try committed(written) }
        }
        // Commits made while messages were written (a chunk filled) are
        // queued: this call returns once they are in the index too.
        try index.waitForQueuedWrites()
    }

    /// Closes the open chunk whatever its age and returns once it is written
    /// (in ring mode: in the ring) and in the index.
    public func flush() throws(RecordingError) {
        try ensureOpen()
        hot.chunkFirstTime = nil
        if let segment {
            let written = try segment.closeChunk() + (try segment.drain())
            if !written.isEmpty { try committed(written) }
        }
        try index.waitForQueuedWrites()
    }

    /// Closes the open chunk and segment, ends the session and commits the
    /// index. Calling it again does nothing.
    public func close(at endTime: UInt64 = Recorder.now()) throws(RecordingError) {
        guard !closed else { return }
        try closeSegment()
        closed = true
        try index.write { db in
            try db.execute(
                sql: "UPDATE sessions SET ended_at = ? WHERE id = ?",
                arguments: [Int64(clamping: endTime), sessionID])
        }
        lock.release()
        try index.throwQueuedFailure()
    }

    // MARK: - Chunks and segments

    private func closeChunk() throws(RecordingError) {
        hot.chunkFirstTime = nil
        guard let segment else { return }
        let written = try segment.closeChunk()
        if !written.isEmpty { try committed(written) }
    }

    /// Commits chunks written to disk to the index and rotates the segment if due.
    private func committed(_ chunks: [ClosedChunk]) throws(RecordingError) {
        try commitToIndex(chunks)
        if let segment, segment.byteSize >= configuration.segmentSize { try closeSegment() }
    }

    /// Commits chunks written to disk to the index, in one transaction; with
    /// ``Durability/batch`` only once their segment is closed and synced
    /// (`synced`), until then they wait in ``unsyncedChunks``.
    private func commitToIndex(_ written: [ClosedChunk], synced: Bool = false) throws(RecordingError) {
        // Ring mode: the chunks are in the ring; the index never names them.
        guard ring == nil else { return }
        var chunks = written
        if configuration.durability == .batch {
            unsyncedChunks += written
            guard synced else { return }
            chunks = unsyncedChunks
            unsyncedChunks = []
        }
        // A failure of an earlier commit is this call's.
        try index.throwQueuedFailure()
        guard !chunks.isEmpty else { return }
        let segmentRowID = self.segmentRowID
        let streamIDs = chunks.map { chunk in chunk.channels.map { streams[Int($0.channelID) - 1].streamID } }
        // On the index's queue: the writing thread goes on with the next
        // messages. Every later index write (a segment's row, the session's
        // end at close) runs after this one, so the rows keep their order.
        index.writeLater { [chunks] db in
            for (chunk, streamIDs) in zip(chunks, streamIDs) {
                try Self.insert(chunk, streamIDs: streamIDs, segmentRowID: segmentRowID, into: db)
            }
            try Self.addTotals(of: chunks, streamIDs: streamIDs, segmentRowID: segmentRowID, into: db)
        }
    }

    /// Adds the chunks' messages, times and sizes to their streams' and
    /// segment's totals: one update per stream and one for the segment,
    /// however many chunks (a batch commits hundreds).
    private static func addTotals(
        of chunks: [ClosedChunk], streamIDs: [[Int64]], segmentRowID: Int64, into db: Database
    ) throws {
        guard let last = chunks.last else { return }
        var streams: [Int64: (count: Int, first: UInt64, last: UInt64)] = [:]
        for (chunk, ids) in zip(chunks, streamIDs) {
            for (statistics, streamID) in zip(chunk.channels, ids) {
                let known = streams[streamID] ?? (0, UInt64.max, UInt64.min)
                streams[streamID] = (
                    known.count + statistics.messageCount, min(known.first, statistics.firstTime),
                    max(known.last, statistics.lastTime)
                )
            }
        }
        let totals = try db.cachedStatement(
            sql: """
                UPDATE streams SET message_count = message_count + ?,
                    first_time = MIN(COALESCE(first_time, ?), ?), last_time = MAX(COALESCE(last_time, ?), ?)
                WHERE id = ?
                """)
        for (streamID, total) in streams.sorted(by: { $0.key < $1.key }) {
            let first = Int64(clamping: total.first)
            let last = Int64(clamping: total.last)
            try totals.execute(arguments: [total.count, first, first, last, last, streamID])
        }
        let start = Int64(clamping: chunks.lazy.map(\.startTime).min()!)
        let end = Int64(clamping: chunks.lazy.map(\.endTime).max()!)
        try db.cachedStatement(
            sql: """
                UPDATE segments SET
                    start_time = COALESCE(MIN(start_time, ?), ?), end_time = COALESCE(MAX(end_time, ?), ?),
                    byte_size = ?, uncompressed_size = uncompressed_size + ?,
                    message_count = message_count + ?, chunk_count = chunk_count + ?
                WHERE id = ?
                """
        ).execute(
            arguments: [
                start, start, end, end, Int64(last.segmentSize),
                Int64(chunks.reduce(0) { $0 + $1.uncompressedSize }), chunks.reduce(0) { $0 + $1.messageCount },
                chunks.count, segmentRowID,
            ])
    }

    /// The rows of one chunk: `chunks` and `chunk_streams` (the totals are ``addTotals(of:streamIDs:segmentRowID:into:)``'s).
    private static func insert(
        _ chunk: ClosedChunk, streamIDs: [Int64], segmentRowID: Int64, into db: Database
    ) throws {
        // Cached statements: an import commits hundreds of chunks in one transaction.
        try db.cachedStatement(sql: RecordingIndex.insertChunk).execute(
            arguments: [
                segmentRowID, chunk.ordinal, Int64(chunk.offset), Int64(chunk.length),
                Int64(chunk.messageIndexLength), Int64(clamping: chunk.startTime),
                Int64(clamping: chunk.endTime), chunk.messageCount, chunk.compression,
                Int64(chunk.compressedSize), Int64(chunk.uncompressedSize),
            ])
        let chunkID = db.lastInsertedRowID
        let insert = try db.cachedStatement(
            sql: RecordingIndex.insertChunkStream)
        for (statistics, streamID) in zip(chunk.channels, streamIDs) {
            let numeric = statistics.numericCount > 0
            try insert.execute(arguments: [
                chunkID, streamID, statistics.messageCount, Int64(clamping: statistics.firstTime),
                Int64(clamping: statistics.lastTime), statistics.numericCount,
                numeric ? statistics.minimum : nil, numeric ? statistics.maximum : nil,
                numeric ? statistics.sum : nil, numeric ? statistics.firstValue : nil,
                numeric ? statistics.lastValue : nil, statistics.firstSampleTime.map { Int64(clamping: $0) },
                statistics.lastSampleTime.map { Int64(clamping: $0) },
            ])
            try RecordingIndex.insert(statistics.cells, chunkID: chunkID, streamID: streamID, into: db)
        }
    }

    private func openSegment() throws(RecordingError) {
        segmentSequence += 1
        let relative = RecordingLayout.segmentName(sequence: segmentSequence)  // in the recording directory, the bag
        var options = SegmentWriter.Options()
        options.profile = ROS2BagMetadata.profile
        options.library = Self.library
        options.chunkSize = configuration.chunkSize
        options.zstdLevel = configuration.zstdLevel
        // Durability.batch: the writer syncs at close, as with .segment; the
        // recorder holds the chunks back from the index until then.
        options.durability = configuration.durability == .batch ? .segment : configuration.durability
        let writer = try SegmentWriter(
            path: directory + "/" + relative, sequence: segmentSequence, options: options,
            storage: storage)
        var facts = session.metadata
        facts["name"] = session.name
        facts["source"] = session.source
        facts["host"] = session.host
        facts["library"] = Self.library
        facts["segment"] = String(segmentSequence)
        if let seed = session.seed { facts["seed"] = String(seed) }
        try writer.writeMetadata(name: "session", facts)
        for (handle, device) in devices.sorted(by: { $0.key.id < $1.key.id }) {
            try writer.writeMetadata(name: handle.metadataName, device)
        }
        let sequence = segmentSequence
        segmentRowID = try index.write { db in
            try db.execute(
                sql: "INSERT INTO segments (session_id, sequence, path, state, byte_size) VALUES (?, ?, ?, 'open', ?)",
                arguments: [sessionID, sequence, relative, Int64(writer.byteSize)])
            return db.lastInsertedRowID
        }
        segment = writer
        hot.segmentFirstTime = nil
        hot.chunkFirstTime = nil
    }

    private func closeSegment() throws(RecordingError) {
        guard let writer = segment else { return }
        segment = nil
        hot.chunkFirstTime = nil
        let (last, closedSegment) = try writer.close()
        try commitToIndex(last, synced: true)
        let rowID = segmentRowID
        try index.write { db in
            try db.execute(
                sql: "UPDATE segments SET state = 'closed', byte_size = ? WHERE id = ?",
                arguments: [Int64(closedSegment.byteSize), rowID])
        }
        // That write ran after every queued commit: any of them that failed did so by now.
        try index.throwQueuedFailure()
        // The ROS 2 bag now holds this segment too (a ring has no bag).
        guard ring == nil else { return }
        try BagMetadataFile.write(
            directory: directory, index: index, durable: configuration.durability != .none)
    }

    private func ensureOpen() throws(RecordingError) {
        if closed { throw RecordingError(.closed, "the recording in \(directory) is closed") }
    }

    private static func json(_ map: [String: String]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: map, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A recorder's observer, in a box its hot path calls through unretained:
/// the observer is a constant of the box, so no retain is needed to call it.
private final class ObserverBox {
    let observer: any RecorderObserver
    init(_ observer: any RecorderObserver) { self.observer = observer }
}

/// A registered stream's writer-side state.
private struct StreamRecord {
    var descriptor: StreamDescriptor
    var channel: SegmentChannel
    var streamID: Int64
}

/// The recorder's per-message state: each stream's next sequence number and
/// row id (by channel id − 1), and the log times the open segment and chunk began.
private struct WriteState {
    enum Admission {
        case admitted(sequence: UInt32)
        case unknownStream
        case segmentDue
        case chunkDue
    }

    var sequences: [UInt32] = []
    var streamIDs: [Int64] = []
    /// A message encoded apart, when it cannot be encoded into the open chunk.
    var scratch = CDRWriter(capacity: 256)
    var segmentFirstTime: UInt64?
    var chunkFirstTime: UInt64?
    var segment: SegmentWriter? {
        didSet { segmentCall = segment.map { Unmanaged.passUnretained($0) } }
    }
    /// The same writer, for the hot path to call without a retain and
    /// release per message.
    var segmentCall: Unmanaged<SegmentWriter>?
    var closed = false
    /// The observer, owned here.
    var observerBox: ObserverBox? {
        didSet { observerCall = observerBox.map { Unmanaged.passUnretained($0) } }
    }
    /// The same box, called without a retain and release per message (an
    /// existential loaded from memory is retained for the call).
    var observerCall: Unmanaged<ObserverBox>?

    /// Whether `slot` holds the stream with row id `streamID`.
    func knows(slot: Int, streamID: Int64) -> Bool {
        slot >= 0 && slot < streamIDs.count && streamIDs[slot] == streamID
    }

    /// Takes a message of stream `slot` at `logTime`, unless its stream is
    /// unknown or the segment or chunk must be closed first.
    @inline(__always)
    mutating func admit(
        slot: Int, streamID: Int64, logTime: UInt64, segmentDuration: UInt64?,
        chunkAge: UInt64
    ) -> Admission {
        guard knows(slot: slot, streamID: streamID) else { return .unknownStream }
        if let duration = segmentDuration, let first = segmentFirstTime, logTime > first, logTime - first >= duration {
            return .segmentDue
        }
        if let first = chunkFirstTime, logTime > first, logTime - first >= chunkAge { return .chunkDue }
        let sequence = sequences[slot]
        sequences[slot] &+= 1
        if chunkFirstTime == nil { chunkFirstTime = logTime }
        if segmentFirstTime == nil { segmentFirstTime = logTime }
        return .admitted(sequence: sequence)
    }
}
