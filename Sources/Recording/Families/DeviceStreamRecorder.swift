public import Devices

/// Records one device of any family: every notification on its raw stream
/// (`/<family>/<device>/raw/<uuid>`) and every value its decoder produces on
/// the value's typed stream (`/<family>/<device>/<stream>`). A notification
/// that fails to decode stays on the raw stream and becomes a loss record.
///
/// Not `Sendable`: it belongs to the task that owns the ``Recorder``.
///
/// ```swift
/// let diot = try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(),
///                                     identifier: "9F3A0C11", name: "DIoT-9F3A")
/// try diot.record(notification)
/// ```
public final class DeviceStreamRecorder<Decoder: PacketDecoder>: DeviceRecorder where Decoder.Value: RecordableValue {
    public let device: DeviceHandle
    public private(set) var decodedCount = 0
    public private(set) var decodeErrorCount = 0

    private let recorder: Recorder
    private var decoder: Decoder
    private var rawStreams: [CharacteristicUUID: StreamHandle] = [:]
    /// Typed streams by ``RecordableValue/streamKey``.
    private var typedStreams: [StreamHandle?] = []
    private var cdr = CDRWriter(capacity: 256)
    private var failure: RecordingError?

    /// Registers the device with the recorder.
    ///
    /// - Parameters:
    ///   - recorder: The recorder to write into.
    ///   - decoder: The family's decoder (its state, for stateful formats, lives here).
    ///   - identifier: The device id used in topics.
    ///   - name: A display name.
    ///   - metadata: Further device facts (firmware, model, advertisement, ...).
    public init(recorder: Recorder, decoder: Decoder, identifier: String, name: String,
                metadata: [String: String] = [:]) throws(RecordingError) {
        self.recorder = recorder
        self.decoder = decoder
        self.device = try recorder.addDevice(family: Decoder.family, identifier: identifier, name: name,
                                             metadata: metadata)
    }

    public func record(_ notification: RawNotification) throws(RecordingError) {
        let raw = try rawStream(notification.characteristic)
        let time = notification.receiveTime
        try recorder.write(raw, logTime: time, payload: RawNotificationMessage.encode(notification))
        do {
            try decoder.decode(notification) { value in
                guard failure == nil else { return }
                do throws(RecordingError) { try write(value, at: time) } catch { failure = error }
            }
        } catch {
            decodeErrorCount += 1
            try recorder.recordLoss(stream: raw, time: time, count: 1, reason: "malformed packet: \(error)")
        }
        if let failure {
            self.failure = nil
            throw failure
        }
    }

    private func write(_ value: Decoder.Value, at time: UInt64) throws(RecordingError) {
        let stream = try typedStream(for: value)
        cdr.reset()
        let numeric = value.encode(into: &cdr)
        try cdr.bytes.withBytes { (payload: UnsafeRawBufferPointer) throws(RecordingError) in
            try recorder.write(stream, logTime: time, payload: payload, numericValue: numeric)
        }
        decodedCount += 1
    }

    private func rawStream(_ characteristic: CharacteristicUUID) throws(RecordingError) -> StreamHandle {
        if let known = rawStreams[characteristic] { return known }
        let topic = StreamDescriptor.rawTopic(family: Decoder.family, device: device.identifier,
                                              characteristic: characteristic)
        let stream = try recorder.addStream(StreamDescriptor(
            topic: topic, kind: .raw, schema: RawNotificationMessage.schema, device: device))
        rawStreams[characteristic] = stream
        return stream
    }

    private func typedStream(for value: Decoder.Value) throws(RecordingError) -> StreamHandle {
        let key = value.streamKey
        if key < typedStreams.count, let known = typedStreams[key] { return known }
        let spec = value.streamSpec
        let stream = try recorder.addStream(StreamDescriptor(
            topic: StreamDescriptor.topic(family: Decoder.family, device: device.identifier, stream: spec.name),
            kind: spec.kind, schema: spec.schema, unit: spec.unit, isNumeric: spec.isNumeric, device: device))
        if key >= typedStreams.count {
            typedStreams.append(contentsOf: repeatElement(nil, count: key + 1 - typedStreams.count))
        }
        typedStreams[key] = stream
        return stream
    }
}
