import DeviceClocks
public import Devices
import MCAP
import ROS2
public import Recording

/// Records one device of any family: every notification on its raw stream
/// (`/<family>/<device>/raw/<uuid>`) and every value its decoder produces on
/// the value's typed stream (`/<family>/<device>/<stream>`). A notification
/// that fails to decode stays on the raw stream and becomes a loss record.
///
/// Typed messages carry the sample time: first in the message (`stamp`) and
/// as the MCAP `publish_time`; `log_time` is the receive time. Values timed
/// by a clock (``SampleTiming``) are collected over their notification and
/// timed together, and each clock's model is recorded on
/// `/<family>/<device>/clock/<name>` (``ClockModelMessage``) when it starts,
/// at a new epoch and at most every 5 s, while a stream it times is
/// written; raw notifications keep the receive time.
///
/// Two optional hooks serve pipelines: `recordsTypedStream` decides, once
/// per typed topic, whether that stream is written (raw streams always are,
/// so a recording can be decoded again), and `observer` sees every decoded
/// value, written or not, right after it was handled.
///
/// Not `Sendable`: it belongs to the task that owns the `Recorder`.
///
/// ```swift
/// let diot = try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(),
///                                     identifier: "9F3A0C11", name: "DIoT-9F3A")
/// try diot.record(notification)
/// ```
public final class DeviceStreamRecorder<Decoder: PacketDecoder>: DeviceRecorder where Decoder.Value: RecordableValue {
    public let device: DeviceHandle
    public var decodedCount: Int { hot.decodedCount }
    public private(set) var decodeErrorCount = 0

    private let recorder: Recorder
    private var rawStreams: [CharacteristicUUID: RawStream] = [:]
    /// Typed streams by ``RecordableValue/streamKey``.
    private var typedStreams: [TypedStream?] = []
    private let recordsTypedStream: ((String) -> Bool)?
    private let observer: ((ObservedValue) throws(RecordingError) -> Void)?
    /// What every notification and value reads and updates, and the decoder,
    /// reached through pointers the recorder allocates itself: no exclusivity
    /// check per message (a class's stored properties each cost a dynamic
    /// one per access). One task owns the recorder.
    private let hotStorage: UnsafeMutablePointer<HotState>
    private var hot: HotState {
        unsafeAddress { UnsafePointer(hotStorage) }
        unsafeMutableAddress { hotStorage }
    }
    private let decoderStorage: UnsafeMutablePointer<Decoder>
    /// The clocks that time values, and the values of the notification at
    /// hand that wait for their clock, reached through pointers as `hot`
    /// is (a stored property would cost a dynamic exclusivity check per access).
    private let clocksStorage: UnsafeMutablePointer<SampleClocks>
    private var clocks: SampleClocks {
        unsafeAddress { UnsafePointer(clocksStorage) }
        unsafeMutableAddress { clocksStorage }
    }
    /// Encoded, not as values: containers of the generic value type cost a
    /// runtime metadata lookup on every use.
    private let pendingStorage: UnsafeMutablePointer<PendingMessages>
    private var pending: PendingMessages {
        unsafeAddress { UnsafePointer(pendingStorage) }
        unsafeMutableAddress { pendingStorage }
    }
    /// Buffers `writePending` reuses, so timing a notification allocates little.
    private let scratchStorage: UnsafeMutablePointer<TimingScratch>
    private var scratch: TimingScratch {
        unsafeAddress { UnsafePointer(scratchStorage) }
        unsafeMutableAddress { scratchStorage }
    }
    private var clockStreams: [Int: StreamHandle] = [:]

    /// Registers the device with the recorder.
    ///
    /// - Parameters:
    ///   - recorder: The recorder to write into.
    ///   - decoder: The family's decoder (its state, for stateful formats, lives here).
    ///   - identifier: The device id used in topics.
    ///   - name: A display name.
    ///   - metadata: Further device facts (firmware, model, advertisement, ...).
    ///   - recordsTypedStream: Whether to write the typed stream with this
    ///     topic, asked once per topic; `nil` writes every stream. Raw streams
    ///     are always written.
    ///   - observer: Called with every decoded value after it was handled,
    ///     on the recorder's task; an error it throws ends ``record(_:)`` with it.
    ///   - fittedSampleTimes: Times a ``DeviceClockSurvey`` of the same
    ///     notifications fitted, given in place of the online estimates;
    ///     `nil` times online.
    public init(
        recorder: Recorder, decoder: Decoder, identifier: String, name: String,
        metadata: [String: String] = [:], recordsTypedStream: ((String) -> Bool)? = nil,
        observer: ((ObservedValue) throws(RecordingError) -> Void)? = nil,
        fittedSampleTimes: FittedSampleTimes? = nil
    ) throws(RecordingError) {
        self.recorder = recorder
        self.recordsTypedStream = recordsTypedStream
        self.observer = observer
        self.device = try recorder.addDevice(
            family: Decoder.family, identifier: identifier, name: name,
            metadata: metadata)
        self.hotStorage = .allocate(capacity: 1)
        hotStorage.initialize(to: HotState(cdr: CDRWriter(capacity: 256)))
        self.decoderStorage = .allocate(capacity: 1)
        decoderStorage.initialize(to: decoder)
        self.clocksStorage = .allocate(capacity: 1)
        clocksStorage.initialize(to: fittedSampleTimes.map { SampleClocks(fitted: $0) } ?? SampleClocks())
        self.pendingStorage = .allocate(capacity: 1)
        pendingStorage.initialize(to: PendingMessages())
        self.scratchStorage = .allocate(capacity: 1)
        scratchStorage.initialize(to: TimingScratch())
    }

    /// A recorder that gives each clock's values the preset `times` in
    /// order (as ``FittedSampleTimes`` keeps them: by clock key, in the
    /// order the samples are timed) and runs no estimator: the record path
    /// without its estimators, which benchmarks measure the estimators
    /// against. It records no clock models.
    @_spi(Benchmarks)
    public convenience init(
        recorder: Recorder, decoder: Decoder, identifier: String, name: String,
        presetSampleTimes times: FittedSampleTimes
    ) throws(RecordingError) {
        try self.init(recorder: recorder, decoder: decoder, identifier: identifier, name: name)
        clocks = SampleClocks(preset: times)
    }

    deinit {
        hotStorage.deinitialize(count: 1)
        hotStorage.deallocate()
        decoderStorage.deinitialize(count: 1)
        decoderStorage.deallocate()
        clocksStorage.deinitialize(count: 1)
        clocksStorage.deallocate()
        pendingStorage.deinitialize(count: 1)
        pendingStorage.deallocate()
        scratchStorage.deinitialize(count: 1)
        scratchStorage.deallocate()
    }

    public func record(_ notification: RawNotification) throws(RecordingError) {
        let index = try rawSlotIndex(notification.characteristic)
        let time = notification.receiveTime
        // Plain values of the raw stream: copying them retains nothing.
        let channelID = hot.recentRaw[index].channelID
        let streamID = hot.recentRaw[index].streamID
        let written = try hot.recentRaw[index].withMessage(notification) {
            (payload: UnsafeRawBufferPointer) throws(RecordingError) in
            try recorder.write(
                channelID: channelID, streamID: streamID, topic: self.rawTopic(channelID), logTime: time,
                publishTime: time, payload: payload, numericValue: nil)
        }
        if !written {
            try writeRaw(notification, slot: index)
        }
        do {
            try decoderStorage.pointee.decode(notification) { value in
                guard hot.failure == nil else { return }
                do throws(RecordingError) { try handle(value, at: time) } catch { hot.failure = error }
            }
            if !pending.isEmpty, hot.failure == nil {
                do throws(RecordingError) { try writePending(at: time) } catch { hot.failure = error }
            }
        } catch {
            decodeErrorCount += 1
            let raw = rawStreams[notification.characteristic]!.handle
            try recorder.recordLoss(stream: raw, time: time, count: 1, reason: "malformed packet: \(error)")
        }
        pending.removeAll()
        if let failure = hot.failure {
            hot.failure = nil
            throw failure
        }
    }

    /// Writes a value timed by its receive time at once, and keeps one timed
    /// by a clock until the notification is decoded.
    @inline(__always)
    private func handle(_ value: Decoder.Value, at time: UInt64) throws(RecordingError) {
        let timing = value.sampleTiming
        switch timing {
        case .receive:
            try write(value, at: time, stamp: time)
        case .setsRate(let hertz, let key):
            clocks.setRate(hertz, clock: key, describe: Decoder.Value.sampleClock)
            try write(value, at: time, stamp: time)
        case .ticks, .nominalRate:
            let key = value.streamKey
            if !(key >= 0 && key < hot.typedSlots.count && hot.typedSlots[key].isKnown) {
                _ = try typedStream(for: value)
            }
            pending.append(streamKey: key, timing: timing) { cdr in value.encode(into: &cdr) }
        }
    }

    /// Times the values of the notification received at `time` that wait
    /// for their clock, clock by clock, writes them, and records each
    /// clock's model when it is due.
    private func writePending(at time: UInt64) throws(RecordingError) {
        guard !pending.hasSeveralClocks else { return try writeDeliveries(at: time) }
        // One clock, the usual notification: its delivery was found as the values were queued.
        let key = PendingMessages.clockKey(pending.messages[0].timing)
        let timed = clocks.times(
            ticks: pending.ticks, count: pending.sampleCount, clock: key, receivedAt: time, into: &scratch.times,
            describe: Decoder.Value.sampleClock)
        var timesRecorded = false
        var index = 0
        while index < pending.messages.count {
            let sample = pending.messages[index].sample
            timesRecorded = try writePending(index, sample: sample, timed: timed, at: time) || timesRecorded
            index += 1
        }
        try writeModelIfDue(clock: key, timesRecorded: timesRecorded, at: time)
    }

    /// ``writePending(at:)`` for a notification whose values have several
    /// clocks: each clock's delivery in turn.
    private func writeDeliveries(at time: UInt64) throws(RecordingError) {
        for index in 0..<pending.deliveryStarts {
            guard let (key, count) = pending.delivery(startingAt: index, into: &scratch) else { continue }
            let timed = clocks.times(
                ticks: scratch.ticks, count: count, clock: key, receivedAt: time, into: &scratch.times,
                describe: Decoder.Value.sampleClock)
            // By index, not by iterating the arrays: each access reads through the pointer, retaining nothing.
            var timesRecorded = false
            var position = 0
            while position < scratch.members.count {
                let member = scratch.members[position]
                timesRecorded =
                    try writePending(member.index, sample: member.sample, timed: timed, at: time) || timesRecorded
                position += 1
            }
            try writeModelIfDue(clock: key, timesRecorded: timesRecorded, at: time)
        }
    }

    /// Writes queued message `index` at its sample's time in `scratch.times`
    /// (at its receive time when its clock did not time it); returns
    /// whether its stream is recorded.
    @inline(__always)
    private func writePending(_ index: Int, sample: Int, timed: Bool, at time: UInt64) throws(RecordingError) -> Bool {
        let stamp = timed ? UInt64(bitPattern: scratch.times[min(sample, scratch.times.count - 1)]) : time
        return try writePending(index, at: time, stamp: stamp)
    }

    /// Records clock `key`'s model when one is due: a clock's model is
    /// written while a stream it times is.
    @inline(__always)
    private func writeModelIfDue(clock key: Int, timesRecorded: Bool, at time: UInt64) throws(RecordingError) {
        guard timesRecorded, clocks.modelMayBeDue, let due = clocks.modelDue(clock: key, at: time) else { return }
        try writeModel(due.model, clock: due.clock, rate: due.rate, key: key, at: time)
    }

    /// Writes a queued message with its sample time, as `write(_:at:stamp:)`
    /// does a value; returns whether its stream is recorded.
    private func writePending(_ index: Int, at time: UInt64, stamp: UInt64) throws(RecordingError) -> Bool {
        let message = pending.messages[index]
        let slot = hot.typedSlots[message.streamKey]
        if observer == nil {
            if slot.isRecorded {
                // Laid out whole on the stack (not zeroed first), the message is copied into the chunk a word at a time.
                let laidOut = try withUnsafeTemporaryAllocation(
                    byteCount: PendingMessages.layOutCapacity, alignment: 8
                ) { (staged: UnsafeMutableRawBufferPointer) throws(RecordingError) -> Bool in
                    let count = pending.layOut(message, stamp: stamp, into: staged)
                    guard count > 0 else { return false }
                    try recorder.write(
                        channelID: slot.channelID, streamID: slot.streamID,
                        topic: typedStreams[message.streamKey]?.topic ?? "", logTime: time, publishTime: stamp,
                        payload: UnsafeRawBufferPointer(rebasing: staged[0..<count]), numericValue: message.numeric)
                    return true
                }
                if !laidOut {
                    try recorder.write(
                        channelID: slot.channelID, streamID: slot.streamID,
                        topic: typedStreams[message.streamKey]?.topic ?? "", logTime: time, publishTime: stamp
                    ) { cdr in
                        cdr.writeTime(nanoseconds: stamp)
                        cdr.storage.append(contentsOf: pending.bytes[message.start..<message.end])
                        return message.numeric
                    }
                }
            }
            hot.decodedCount += 1
            return slot.isRecorded
        }
        hot.cdr.reset()
        hot.cdr.writeTime(nanoseconds: stamp)
        hot.cdr.storage.append(contentsOf: pending.bytes[message.start..<message.end])
        if slot.isRecorded {
            try hot.cdr.withPayload { (payload: UnsafeRawBufferPointer) throws(RecordingError) in
                try recorder.write(
                    channelID: slot.channelID, streamID: slot.streamID,
                    topic: typedStreams[message.streamKey]?.topic ?? "", logTime: time, publishTime: stamp,
                    payload: payload, numericValue: message.numeric)
            }
        }
        hot.decodedCount += 1
        if let observer, let stream = typedStreams[message.streamKey] {
            try observer(
                ObservedValue(
                    topic: stream.topic, logTime: time, sampleTime: stamp, numericValue: message.numeric,
                    schema: stream.schema, payload: hot.cdr.bytes, isRecorded: stream.handle != nil))
        }
        return slot.isRecorded
    }

    /// Records a clock's model on its stream, registered on first use.
    private func writeModel(
        _ model: ClockModel, clock: SampleClock, rate: Double, key: Int, at time: UInt64
    )
        throws(RecordingError)
    {
        let stream: StreamHandle
        if let known = clockStreams[key] {
            stream = known
        } else {
            let topic = StreamDescriptor.topic(
                family: Decoder.family, device: device.identifier, stream: "clock/" + clock.name)
            stream = try recorder.addStream(
                StreamDescriptor(topic: topic, kind: .typed, schema: ClockModelMessage.schema.stamped, device: device))
            clockStreams[key] = stream
        }
        try recorder.write(
            channelID: stream.channelID, streamID: stream.streamID, topic: stream.topic, logTime: time,
            publishTime: time
        ) { cdr in
            cdr.writeTime(nanoseconds: time)
            ClockModelMessage.encode(model, clock: clock, nominalRate: rate, into: &cdr)
            return nil
        }
    }

    /// Writes a notification too long to be laid out on the stack: encoded
    /// straight into the open chunk.
    private func writeRaw(_ notification: RawNotification, slot index: Int) throws(RecordingError) {
        let channelID = hot.recentRaw[index].channelID
        let streamID = hot.recentRaw[index].streamID
        let time = notification.receiveTime
        try recorder.write(
            channelID: channelID, streamID: streamID, topic: self.rawTopic(channelID), logTime: time,
            publishTime: time
        ) { cdr in
            RawNotificationMessage.encode(
                notification, characteristic: rawStreams[notification.characteristic]?.characteristic ?? "",
                into: &cdr)
            return nil
        }
    }

    private func write(_ value: Decoder.Value, at time: UInt64, stamp: UInt64) throws(RecordingError) {
        let key = value.streamKey
        var slot = key >= 0 && key < hot.typedSlots.count ? hot.typedSlots[key] : TypedSlot()
        if !slot.isKnown {
            _ = try typedStream(for: value)
            slot = hot.typedSlots[key]
        }
        if observer == nil {
            // Nothing else reads the message: it is encoded where the recorder keeps it.
            if slot.isRecorded {
                try recorder.write(
                    channelID: slot.channelID, streamID: slot.streamID, topic: typedStreams[key]?.topic ?? "",
                    logTime: time, publishTime: stamp
                ) { cdr in
                    cdr.writeTime(nanoseconds: stamp)
                    return value.encode(into: &cdr)
                }
            }
            hot.decodedCount += 1
            return
        }
        hot.cdr.reset()
        hot.cdr.writeTime(nanoseconds: stamp)
        let numeric = value.encode(into: &hot.cdr)
        if slot.isRecorded {
            try hot.cdr.withPayload { (payload: UnsafeRawBufferPointer) throws(RecordingError) in
                try recorder.write(
                    channelID: slot.channelID, streamID: slot.streamID, topic: typedStreams[key]?.topic ?? "",
                    logTime: time, publishTime: stamp, payload: payload, numericValue: numeric)
            }
        }
        hot.decodedCount += 1
        if let observer, let stream = typedStreams[key] {
            try observer(
                ObservedValue(
                    topic: stream.topic, logTime: time, sampleTime: stamp, numericValue: numeric,
                    schema: stream.schema, payload: hot.cdr.bytes, isRecorded: stream.handle != nil))
        }
    }

    /// The index in `hot.recentRaw` of the raw stream of `characteristic`,
    /// registered on its first notification.
    private func rawSlotIndex(_ characteristic: CharacteristicUUID) throws(RecordingError) -> Int {
        for index in hot.recentCharacteristics.indices where hot.recentCharacteristics[index] == characteristic {
            return index
        }
        if let known = rawStreams[characteristic] {
            return hot.remember(characteristic, RawSlot(known))
        }
        let topic = StreamDescriptor.rawTopic(
            family: Decoder.family, device: device.identifier,
            characteristic: characteristic)
        let stream = try recorder.addStream(
            StreamDescriptor(
                topic: topic, kind: .raw, schema: RawNotificationMessage.schema, device: device))
        let raw = RawStream(handle: stream, characteristic: characteristic.description)
        rawStreams[characteristic] = raw
        return hot.remember(characteristic, RawSlot(raw))
    }

    /// The topic of the raw stream with `channelID` (for an error message).
    private func rawTopic(_ channelID: UInt16) -> String {
        rawStreams.values.first { $0.handle.channelID == channelID }?.handle.topic ?? ""
    }

    private func typedStream(for value: Decoder.Value) throws(RecordingError) -> TypedStream {
        let key = value.streamKey
        if key < typedStreams.count, let known = typedStreams[key] { return known }
        var spec = value.streamSpec
        spec.schema = spec.schema.stamped
        let topic = StreamDescriptor.topic(family: Decoder.family, device: device.identifier, stream: spec.name)
        var handle: StreamHandle?
        if recordsTypedStream?(topic) ?? true {
            // A replay from later registers the latched streams it begins with.
            if let registered = recorder.registeredStream(topic: topic) {
                handle = registered
            } else {
                handle = try recorder.addStream(
                    StreamDescriptor(
                        topic: topic, kind: spec.kind, schema: spec.schema, unit: spec.unit, isNumeric: spec.isNumeric,
                        device: device, isLatched: spec.isLatched))
            }
        }
        let stream = TypedStream(topic: topic, schema: spec.schema, handle: handle)
        if key >= typedStreams.count {
            typedStreams.append(contentsOf: repeatElement(nil, count: key + 1 - typedStreams.count))
        }
        if key >= hot.typedSlots.count {
            hot.typedSlots.append(contentsOf: repeatElement(TypedSlot(), count: key + 1 - hot.typedSlots.count))
        }
        typedStreams[key] = stream
        hot.typedSlots[key] = TypedSlot(handle: handle)
        return stream
    }
}

/// A ``DeviceStreamRecorder``'s per-message state.
private struct HotState {
    /// The message being encoded.
    var cdr: CDRWriter
    /// What writing a typed value needs, by ``RecordableValue/streamKey``:
    /// plain values, so a message retains nothing.
    var typedSlots: [TypedSlot] = []
    /// The raw streams written last and their characteristics, searched in
    /// order before the dictionary (a device notifies a few
    /// characteristics, often in turn).
    var recentCharacteristics: [CharacteristicUUID] = []
    var recentRaw: [RawSlot] = []
    var decodedCount = 0
    /// What writing a value threw, inside the decoder's emit.
    var failure: RecordingError?

    /// Keeps `stream` among the recent raw streams (the oldest of eight
    /// goes) and returns its index there.
    mutating func remember(_ characteristic: CharacteristicUUID, _ stream: RawSlot) -> Int {
        if recentRaw.count >= 8 {
            recentCharacteristics.removeFirst()
            recentRaw.removeFirst()
        }
        recentCharacteristics.append(characteristic)
        recentRaw.append(stream)
        return recentRaw.count - 1
    }
}

/// What writing a raw stream's message needs, in plain values (a message
/// retains nothing): its channel and row id, and how every message starts,
/// the characteristic's text as a CDR `string` (48 bytes hold a UUID's 36
/// characters).
private struct RawSlot {
    let channelID: UInt16
    let streamID: Int64
    private var prefix: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
    /// The bytes of `prefix` in use; 0 when the field does not fit it.
    private var prefixCount = 0

    init(_ stream: RawStream) {
        channelID = stream.handle.channelID
        streamID = stream.handle.streamID
        var field = CDRWriter(capacity: 64)
        field.write(stream.characteristic)
        let encoded = field.bytes[4...]
        if encoded.count <= MemoryLayout.size(ofValue: prefix) {
            prefixCount = encoded.count
            withUnsafeMutableBytes(of: &prefix) { raw in raw.copyBytes(from: encoded) }
        }
    }

    /// Lays `notification`'s whole message (encapsulation header and body)
    /// out on the stack and calls `body` with it, so the recorder copies it
    /// into the chunk in one piece; `false`, calling nothing, when the
    /// message is longer than 128 bytes or the characteristic's text does
    /// not fit the slot.
    @inline(__always)
    func withMessage(
        _ notification: RawNotification, _ body: (UnsafeRawBufferPointer) throws(RecordingError) -> Void
    ) throws(RecordingError) -> Bool {
        guard prefixCount > 0 else { return false }
        // The body: the characteristic's string, the receive time aligned to 8, the bytes' u32 count, the bytes.
        let timeAt = 4 + ((prefixCount + 7) & ~7)
        let dataAt = timeAt + 12
        return try notification.bytes.withBytes { (data: UnsafeRawBufferPointer) throws(RecordingError) -> Bool in
            var message:
                (
                    UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                    UInt64, UInt64, UInt64, UInt64
                ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let count = dataAt + data.count
            guard count <= MemoryLayout.size(ofValue: message) else { return false }
            try withUnsafeMutableBytes(of: &message) { (raw: UnsafeMutableRawBufferPointer) throws(RecordingError) in
                raw.storeBytes(of: UInt8(0x01), toByteOffset: 1, as: UInt8.self)
                withUnsafeBytes(of: prefix) { field in
                    (raw.baseAddress! + 4).copyMemory(from: field.baseAddress!, byteCount: prefixCount)
                }
                raw.storeBytes(of: notification.receiveTime.littleEndian, toByteOffset: timeAt, as: UInt64.self)
                raw.storeBytes(of: UInt32(data.count).littleEndian, toByteOffset: timeAt + 8, as: UInt32.self)
                if let source = data.baseAddress, data.count > 0 {
                    (raw.baseAddress! + dataAt).copyMemory(from: source, byteCount: data.count)
                }
                try body(UnsafeRawBufferPointer(rebasing: raw[0..<count]))
            }
            return true
        }
    }
}

/// A raw stream of a device: its handle and its characteristic's text (in every message).
private struct RawStream {
    let handle: StreamHandle
    let characteristic: String
}

/// A typed stream's channel and row id when it is written, in plain values.
private struct TypedSlot {
    /// The stream is registered (written or not).
    var isKnown = false
    /// The stream is written.
    var isRecorded = false
    var channelID: UInt16 = 0
    var streamID: Int64 = 0

    /// Not registered yet.
    init() {}

    /// A registered stream, written when it has a handle.
    init(handle: StreamHandle?) {
        isKnown = true
        isRecorded = handle != nil
        channelID = handle?.channelID ?? 0
        streamID = handle?.streamID ?? 0
    }
}

/// A typed stream of a device: its topic and schema, and its handle when it is written.
private struct TypedStream {
    let topic: String
    let schema: MessageSchema
    let handle: StreamHandle?
}
