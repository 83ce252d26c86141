public import Devices

/// Records a DIoT device: every notification on its raw stream
/// (`/diot/<device>/raw/<uuid>`), each data-channel record on its feature's
/// typed stream (`/diot/<device>/<feature>`, schema `tlm/msg/DiotSample`), and
/// "channel empty" events on `/diot/<device>/channel_empty`. A malformed
/// notification is kept on the raw stream and written as a loss record.
///
/// ```swift
/// let diot = try DiotDeviceRecorder(recorder: recorder, identifier: "9F3A0C11", name: "DIoT-9F3A")
/// try diot.record(notification)
/// ```
public final class DiotDeviceRecorder: DeviceRecorder {
    public let device: DeviceHandle
    public private(set) var decodedCount = 0
    public private(set) var decodeErrorCount = 0

    private let recorder: Recorder
    private let decoder = DiotDecoder()
    private var rawStreams: [CharacteristicUUID: StreamHandle] = [:]
    /// Typed streams by feature code.
    private var featureStreams: [StreamHandle?] = Array(repeating: nil, count: 256)
    private var emptyStream: StreamHandle?
    private var scratch = [UInt8](repeating: 0, count: DiotSampleMessage.encodedSize)

    /// Registers the device with the recorder.
    ///
    /// - Parameters:
    ///   - recorder: The recorder to write into.
    ///   - identifier: The device id used in topics (for DIoT, from its advertised UUID).
    ///   - name: A display name.
    ///   - metadata: Further device facts (firmware, model, ...).
    public init(recorder: Recorder, identifier: String, name: String,
                metadata: [String: String] = [:]) throws(RecordingError) {
        self.recorder = recorder
        self.device = try recorder.addDevice(family: .diot, identifier: identifier, name: name, metadata: metadata)
    }

    public func record(_ notification: RawNotification) throws(RecordingError) {
        let raw = try rawStream(notification.characteristic)
        let time = notification.receiveTime
        try recorder.write(raw, logTime: time, payload: RawNotificationMessage.encode(notification))
        let packet: DiotPacket
        do {
            packet = try decoder.decode(notification)
        } catch {
            decodeErrorCount += 1
            try recorder.recordLoss(stream: raw, time: time, count: 1, reason: "malformed packet: \(error.message)")
            return
        }
        switch packet {
        case .empty(let channel):
            let stream = try channelEmptyStream()
            try recorder.write(stream, logTime: time, payload: DiotChannelEmptyMessage.encode(channel: channel.rawValue))
        case .records(let records):
            for record in records {
                let stream = try featureStream(record.feature)
                try scratch.withMutableBytes { (buffer: UnsafeMutableRawBufferPointer) throws(RecordingError) in
                    DiotSampleMessage.encode(record, into: buffer)
                    try recorder.write(stream, logTime: time, payload: UnsafeRawBufferPointer(buffer),
                                       numericValue: record.value.numericValue)
                }
                decodedCount += 1
            }
        }
    }

    private func rawStream(_ characteristic: CharacteristicUUID) throws(RecordingError) -> StreamHandle {
        if let known = rawStreams[characteristic] { return known }
        let topic = StreamDescriptor.rawTopic(family: .diot, device: device.identifier, characteristic: characteristic)
        let stream = try recorder.addStream(StreamDescriptor(
            topic: topic, kind: .raw, schema: RawNotificationMessage.schema, device: device))
        rawStreams[characteristic] = stream
        return stream
    }

    private func featureStream(_ feature: DiotFeature) throws(RecordingError) -> StreamHandle {
        if let known = featureStreams[Int(feature.rawValue)] { return known }
        let topic = StreamDescriptor.topic(family: .diot, device: device.identifier, stream: feature.topicName)
        let stream = try recorder.addStream(StreamDescriptor(
            topic: topic, kind: .typed, schema: DiotSampleMessage.schema, unit: feature.unit, isNumeric: true,
            device: device))
        featureStreams[Int(feature.rawValue)] = stream
        return stream
    }

    private func channelEmptyStream() throws(RecordingError) -> StreamHandle {
        if let emptyStream { return emptyStream }
        let stream = try recorder.addStream(StreamDescriptor(
            topic: StreamDescriptor.topic(family: .diot, device: device.identifier, stream: "channel_empty"),
            kind: .event, schema: DiotChannelEmptyMessage.schema, device: device))
        emptyStream = stream
        return stream
    }
}
