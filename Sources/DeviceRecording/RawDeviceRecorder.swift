public import Devices
public import Recording

/// Records a device of no known family: every notification on its raw
/// stream (`/<family>/<device>/raw/<uuid>`), nothing decoded. Imported
/// captures use it, family `ble`, for devices no family recognises, so
/// their data is kept and can be decoded later by a family that knows it.
///
/// Not `Sendable`: it belongs to the task that owns the `Recorder`.
///
/// ```swift
/// let device = try RawDeviceRecorder(recorder: recorder, identifier: "C47C8D6A1234", name: "C4:7C:8D:6A:12:34")
/// try device.record(notification)
/// ```
public final class RawDeviceRecorder: DeviceRecorder {
    /// The family name of devices no family recognises.
    public static let unknownFamily = DeviceFamily(known: "ble")

    public let device: DeviceHandle
    public let decodedCount = 0
    public let decodeErrorCount = 0
    private let recorder: Recorder
    private var rawStreams: [CharacteristicUUID: StreamHandle] = [:]

    /// Registers the device with the recorder.
    ///
    /// - Parameters:
    ///   - recorder: The recorder to write into.
    ///   - family: The first topic level (``unknownFamily`` by default).
    ///   - identifier: The device id used in topics.
    ///   - name: A display name.
    ///   - metadata: Further device facts.
    public init(
        recorder: Recorder, family: DeviceFamily = RawDeviceRecorder.unknownFamily, identifier: String,
        name: String, metadata: [String: String] = [:]
    ) throws(RecordingError) {
        self.recorder = recorder
        device = try recorder.addDevice(family: family, identifier: identifier, name: name, metadata: metadata)
    }

    public func record(_ notification: RawNotification) throws(RecordingError) {
        let stream: StreamHandle
        if let known = rawStreams[notification.characteristic] {
            stream = known
        } else {
            let topic = StreamDescriptor.rawTopic(
                family: device.family, device: device.identifier,
                characteristic: notification.characteristic)
            stream = try recorder.addStream(
                StreamDescriptor(
                    topic: topic, kind: .raw, schema: RawNotificationMessage.schema, device: device))
            rawStreams[notification.characteristic] = stream
        }
        try recorder.write(
            stream, logTime: notification.receiveTime,
            payload: RawNotificationMessage.encode(notification))
    }
}
