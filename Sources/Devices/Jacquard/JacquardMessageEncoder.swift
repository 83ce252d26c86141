/// Encodes typed Jacquard values as the protocol messages a tag sends: the
/// inverse of ``JacquardDecoder``, for the simulator and tests.
///
/// Notification envelopes get the domain and opcode of their kind: GEAR/5
/// for gestures and touch frames and BASE/23 for battery status (both as in
/// the spec's examples); the spec fixes no opcode for the other kinds, so the
/// encoder uses ``attachedOpcode``, ``disconnectOpcode`` and ``errorOpcode``
/// (the decoder routes by extension, never by opcode). Gesture and touch
/// messages leave out a zero `component_id` and `timestamp_ticks`; the other
/// envelopes always carry all three fields, so the spec's examples come out
/// byte for byte.
///
/// ```swift
/// let gesture = JacquardValue.gesture(JacquardGestureEvent(gesture: .doubleTap))
/// let message = JacquardMessageEncoder.message(for: gesture)!
/// print(JacquardFragmenter.fragments(of: message)[0].count) // 13: C0 0B 08 08 10 05 AA 39 04 0A 02 08 01
/// ```
public enum JacquardMessageEncoder {
    /// The opcode of gesture and touch-data notifications, 5.
    public static let dataChannelOpcode: Int32 = 5
    /// The opcode of battery-status notifications, 23.
    public static let batteryStatusOpcode: Int32 = 23
    /// The opcode the encoder gives Attached notifications.
    public static let attachedOpcode: Int32 = 30
    /// The opcode the encoder gives Disconnect notifications.
    public static let disconnectOpcode: Int32 = 31
    /// The opcode the encoder gives Error notifications.
    public static let errorOpcode: Int32 = 32

    /// The characteristic that carries a value.
    ///
    /// - Parameter value: A value.
    /// - Returns: ``JacquardCharacteristic/response`` for responses,
    ///   ``JacquardCharacteristic/rawData`` for IMU samples, otherwise
    ///   ``JacquardCharacteristic/notify``.
    public static func characteristic(for value: JacquardValue) -> JacquardCharacteristic {
        switch value {
        case .response: .response
        case .imuSample: .rawData
        default: .notify
        }
    }

    /// The protobuf message (not yet fragmented) that carries a value.
    ///
    /// - Parameter value: A value; IMU samples are not protobuf messages
    ///   (use ``imuNotification(samples:sensorID:header:)``).
    /// - Returns: The message, or `nil` for ``JacquardValue/imuSample(_:)``.
    public static func message(for value: JacquardValue) -> [UInt8]? {
        var message = JacquardProtobufWriter()
        switch value {
        case .gesture(let event):
            var inference = JacquardProtobufWriter()
            inference.writeInt32Field(1, event.gesture.id)
            var data = JacquardProtobufWriter()
            data.writeMessageField(1, inference)
            if event.timestampTicks != 0 { data.writeVarintField(3, UInt64(event.timestampTicks)) }
            writeEnvelope(
                &message, domain: .gear, opcode: dataChannelOpcode, componentID: event.componentID, always: false)
            message.writeMessageField(917, data)
        case .touchFrame(let frame):
            var touch = JacquardProtobufWriter()
            touch.writeVarintField(4, UInt64(frame.sequence))
            touch.writeBytesField(7, frame.diffDataScaled)
            var data = JacquardProtobufWriter()
            data.writeMessageField(2, touch)
            if frame.timestampTicks != 0 { data.writeVarintField(3, UInt64(frame.timestampTicks)) }
            writeEnvelope(
                &message, domain: .gear, opcode: dataChannelOpcode, componentID: frame.componentID, always: false)
            message.writeMessageField(917, data)
        case .batteryStatus(let status):
            writeEnvelope(&message, domain: .base, opcode: batteryStatusOpcode, componentID: 0, always: true)
            message.writeMessageField(121, batteryStatus(status))
        case .attached(let attached):
            var payload = JacquardProtobufWriter()
            payload.writeBoolField(1, attached.attachState)
            payload.writeVarintField(2, UInt64(attached.vendorID))
            payload.writeVarintField(3, UInt64(attached.productID))
            payload.writeVarintField(4, UInt64(attached.componentID))
            writeEnvelope(&message, domain: .base, opcode: attachedOpcode, componentID: 0, always: true)
            message.writeMessageField(109, payload)
        case .disconnect(let disconnect):
            var payload = JacquardProtobufWriter()
            payload.writeBoolField(1, disconnect.reconnect)
            writeEnvelope(&message, domain: .base, opcode: disconnectOpcode, componentID: 0, always: true)
            message.writeMessageField(102, payload)
        case .error(let error):
            var payload = JacquardProtobufWriter()
            payload.writeVarintField(1, UInt64(error.device))
            payload.writeVarintField(2, UInt64(error.subsystem))
            payload.writeVarintField(3, UInt64(error.errorCode))
            writeEnvelope(&message, domain: .base, opcode: errorOpcode, componentID: 0, always: true)
            message.writeMessageField(117, payload)
        case .notification(let envelope):
            writeEnvelope(
                &message, domain: envelope.domain, opcode: envelope.opcode, componentID: envelope.componentID,
                always: true
            )
        case .response(let response):
            message.writeVarintField(1, UInt64(response.id))
            message.writeInt32Field(2, response.status.rawValue)
            message.writeVarintField(3, UInt64(response.componentID))
            switch response.payload {
            case .hello(let hello):
                var payload = JacquardProtobufWriter()
                payload.writeVarintField(1, UInt64(hello.protocolMin))
                payload.writeVarintField(2, UInt64(hello.protocolMax))
                payload.writeStringField(3, hello.vendor)
                payload.writeStringField(4, hello.model)
                payload.writeVarintField(6, UInt64(hello.vendorID))
                payload.writeVarintField(7, UInt64(hello.productID))
                message.writeMessageField(100, payload)
            case .deviceInfo(let info):
                var payload = JacquardProtobufWriter()
                payload.writeStringField(1, info.vendor)
                payload.writeStringField(2, info.model)
                payload.writeStringField(3, info.revision)
                payload.writeStringField(4, info.uuid)
                payload.writeVarintField(5, UInt64(info.firmwareMajor))
                payload.writeVarintField(6, UInt64(info.firmwareMinor))
                payload.writeVarintField(7, UInt64(info.firmwarePoint))
                payload.writeVarintField(11, UInt64(info.vendorID))
                payload.writeVarintField(12, UInt64(info.productID))
                message.writeMessageField(103, payload)
            case .batteryStatus(let status):
                message.writeMessageField(121, batteryStatus(status))
            case nil:
                break
            }
        case .imuSample:
            return nil
        }
        return message.bytes
    }

    /// The notifications (fragments) that carry a value.
    ///
    /// - Parameter value: A value; an IMU sample becomes a one-sample raw-data notification.
    /// - Returns: The characteristic and its notifications, in order.
    public static func notifications(
        for value: JacquardValue
    ) -> (
        characteristic: JacquardCharacteristic, values: [[UInt8]]
    ) {
        if case .imuSample(let sample) = value {
            return (.rawData, [imuNotification(samples: [sample], sensorID: sample.sensorID)])
        }
        return (characteristic(for: value), JacquardFragmenter.fragments(of: message(for: value) ?? []))
    }

    /// A raw-data notification: a header byte, the sensor id, then the samples.
    ///
    /// - Parameters:
    ///   - samples: The samples, 16 bytes each (their own sensor ids are not written).
    ///   - sensorID: Byte 1: 0 IMU, 1 gear.
    ///   - header: Byte 0, which the decoder ignores.
    /// - Returns: `2 + 16 × samples.count` bytes.
    public static func imuNotification(samples: [JacquardIMUSample], sensorID: UInt8, header: UInt8 = 0) -> [UInt8] {
        var bytes: [UInt8] = [header, sensorID]
        bytes.reserveCapacity(2 + JacquardIMUSample.size * samples.count)
        for sample in samples { sample.append(to: &bytes) }
        return bytes
    }

    /// Writes the envelope fields: domain, opcode and (when `always` or
    /// non-zero) component_id.
    private static func writeEnvelope(
        _ message: inout JacquardProtobufWriter,
        domain: JacquardDomain,
        opcode: Int32,
        componentID: UInt32,
        always: Bool
    ) {
        message.writeInt32Field(1, domain.rawValue)
        message.writeInt32Field(2, opcode)
        if always || componentID != 0 { message.writeVarintField(3, UInt64(componentID)) }
    }

    /// A BatteryStatus payload.
    private static func batteryStatus(_ status: JacquardBatteryStatus) -> JacquardProtobufWriter {
        var payload = JacquardProtobufWriter()
        payload.writeVarintField(1, UInt64(status.batteryLevel))
        payload.writeInt32Field(2, status.chargingStatus.rawValue)
        return payload
    }
}
