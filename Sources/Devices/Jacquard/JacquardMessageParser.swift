/// Decodes reassembled Jacquard messages (protobuf envelopes and their
/// extensions) and raw-data IMU notifications, straight from borrowed bytes.
///
/// Each function parses the whole message before emitting anything, so a
/// malformed message emits nothing. Absent fields read as their proto2
/// default (0, `false`); a repeated scalar field keeps its last value; when
/// several payload extensions are present the last one wins. Numeric fields
/// accept any numeric wire type; a field with the wrong kind of wire type is
/// skipped like an unknown field.
@usableFromInline
enum JacquardMessageParser {
    /// Extension numbers (field numbers ≥ 99 on the envelopes).
    @usableFromInline
    enum Extension {
        @inlinable static var hello: Int { 100 }
        @inlinable static var disconnect: Int { 102 }
        @inlinable static var deviceInfo: Int { 103 }
        @inlinable static var attached: Int { 109 }
        @inlinable static var error: Int { 117 }
        @inlinable static var batteryStatus: Int { 121 }
        @inlinable static var dataChannel: Int { 917 }
    }

    /// Decodes a Notification envelope (notify characteristic).
    @inlinable
    static func parseNotification(
        _ message: UnsafeRawBufferPointer,
        emit: (JacquardValue) -> Void
    ) -> JacquardDecodeError.Code? {
        var domain: Int32 = 0
        var opcode: Int32 = 0
        var componentID: UInt32 = 0
        var payloadField = 0
        var payload = UnsafeRawBufferPointer(start: nil, count: 0)
        do throws(JacquardProtobufError) {
            var reader = JacquardProtobufReader(message)
            while !reader.isAtEnd {
                let (field, wireType) = try reader.readTag()
                switch field {
                case 1:
                    if let value = try reader.readNumber(wireType) { domain = Int32(truncatingIfNeeded: value) }
                case 2:
                    if let value = try reader.readNumber(wireType) { opcode = Int32(truncatingIfNeeded: value) }
                case 3:
                    if let value = try reader.readNumber(wireType) { componentID = UInt32(truncatingIfNeeded: value) }
                case Extension.disconnect, Extension.attached, Extension.error, Extension.batteryStatus,
                    Extension.dataChannel:
                    if wireType == .lengthDelimited {
                        payload = try reader.readLengthDelimited()
                        payloadField = field
                    } else {
                        try reader.skipField(wireType)
                    }
                default:
                    try reader.skipField(wireType)
                }
            }
            switch payloadField {
            case Extension.dataChannel:
                return try parseDataChannel(
                    payload, componentID: componentID, domain: domain, opcode: opcode, emit: emit)
            case Extension.batteryStatus:
                emit(.batteryStatus(try parseBatteryStatus(payload)))
            case Extension.attached:
                var attached = JacquardAttached(attachState: false, vendorID: 0, productID: 0, componentID: 0)
                var reader = JacquardProtobufReader(payload)
                while !reader.isAtEnd {
                    let (field, wireType) = try reader.readTag()
                    guard let value = try reader.readNumber(wireType) else { continue }
                    switch field {
                    case 1: attached.attachState = value != 0
                    case 2: attached.vendorID = UInt32(truncatingIfNeeded: value)
                    case 3: attached.productID = UInt32(truncatingIfNeeded: value)
                    case 4: attached.componentID = UInt32(truncatingIfNeeded: value)
                    default: break
                    }
                }
                emit(.attached(attached))
            case Extension.disconnect:
                var disconnect = JacquardDisconnect(reconnect: false)
                var reader = JacquardProtobufReader(payload)
                while !reader.isAtEnd {
                    let (field, wireType) = try reader.readTag()
                    guard let value = try reader.readNumber(wireType) else { continue }
                    if field == 1 { disconnect.reconnect = value != 0 }
                }
                emit(.disconnect(disconnect))
            case Extension.error:
                var error = JacquardErrorNotification(device: 0, subsystem: 0, errorCode: 0)
                var reader = JacquardProtobufReader(payload)
                while !reader.isAtEnd {
                    let (field, wireType) = try reader.readTag()
                    guard let value = try reader.readNumber(wireType) else { continue }
                    switch field {
                    case 1: error.device = UInt32(truncatingIfNeeded: value)
                    case 2: error.subsystem = UInt32(truncatingIfNeeded: value)
                    case 3: error.errorCode = UInt32(truncatingIfNeeded: value)
                    default: break
                    }
                }
                emit(.error(error))
            default:
                emit(
                    .notification(
                        JacquardNotification(
                            domain: JacquardDomain(rawValue: domain), opcode: opcode, componentID: componentID)))
            }
            return nil
        } catch {
            return JacquardDecodeError.Code(error)
        }
    }

    /// Decodes a DataChannel payload (extension 917): a gesture, a touch
    /// frame, both, or (when it has neither) the bare envelope.
    @inlinable
    static func parseDataChannel(
        _ payload: UnsafeRawBufferPointer,
        componentID: UInt32,
        domain: Int32,
        opcode: Int32,
        emit: (JacquardValue) -> Void
    ) throws(JacquardProtobufError) -> JacquardDecodeError.Code? {
        var event: Int32 = 0
        var hasInference = false
        var hasTouch = false
        var sequence: UInt32 = 0
        var diff = UnsafeRawBufferPointer(start: nil, count: 0)
        var hasDiff = false
        var ticks: UInt32 = 0
        var reader = JacquardProtobufReader(payload)
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readTag()
            switch (field, wireType) {
            case (1, .lengthDelimited):
                hasInference = true
                var inference = JacquardProtobufReader(try reader.readLengthDelimited())
                while !inference.isAtEnd {
                    let (field, wireType) = try inference.readTag()
                    let value = try inference.readNumber(wireType)
                    if field == 1, let value { event = Int32(truncatingIfNeeded: value) }
                }
            case (2, .lengthDelimited):
                hasTouch = true
                hasDiff = false
                var touch = JacquardProtobufReader(try reader.readLengthDelimited())
                while !touch.isAtEnd {
                    let (field, wireType) = try touch.readTag()
                    if field == 7, wireType == .lengthDelimited {
                        diff = try touch.readLengthDelimited()
                        hasDiff = true
                    } else if let value = try touch.readNumber(wireType), field == 4 {
                        sequence = UInt32(truncatingIfNeeded: value)
                    }
                }
            case (3, _):
                if let value = try reader.readNumber(wireType) { ticks = UInt32(truncatingIfNeeded: value) }
            default:
                try reader.skipField(wireType)
            }
        }
        if hasTouch, !hasDiff || diff.count != JacquardTouchFrame.diffDataLength { return .invalidTouchData }
        if hasInference {
            emit(
                .gesture(
                    JacquardGestureEvent(
                        gesture: JacquardGesture(id: event), componentID: componentID, timestampTicks: ticks)))
        }
        if hasTouch {
            emit(
                .touchFrame(
                    JacquardTouchFrame(
                        sequence: sequence, diffDataScaled: diff, componentID: componentID, timestampTicks: ticks)
                )
            )
        }
        if !hasInference, !hasTouch {
            emit(
                .notification(
                    JacquardNotification(
                        domain: JacquardDomain(rawValue: domain), opcode: opcode, componentID: componentID)))
        }
        return nil
    }

    /// Decodes a BatteryStatus payload (extension 121).
    @inlinable
    static func parseBatteryStatus(
        _ payload: UnsafeRawBufferPointer
    ) throws(JacquardProtobufError)
        -> JacquardBatteryStatus
    {
        var level: UInt32 = 0
        var charging: Int32 = 0
        var reader = JacquardProtobufReader(payload)
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readTag()
            guard let value = try reader.readNumber(wireType) else { continue }
            switch field {
            case 1: level = UInt32(truncatingIfNeeded: value)
            case 2: charging = Int32(truncatingIfNeeded: value)
            default: break
            }
        }
        return JacquardBatteryStatus(batteryLevel: level, chargingStatus: JacquardChargingStatus(rawValue: charging))
    }

    /// Decodes a Response envelope (response characteristic).
    @usableFromInline
    static func parseResponse(
        _ message: UnsafeRawBufferPointer,
        emit: (JacquardValue) -> Void
    ) -> JacquardDecodeError.Code? {
        var response = JacquardResponse(id: 0, status: .ok)
        var payloadField = 0
        var payload = UnsafeRawBufferPointer(start: nil, count: 0)
        do throws(JacquardProtobufError) {
            var reader = JacquardProtobufReader(message)
            while !reader.isAtEnd {
                let (field, wireType) = try reader.readTag()
                switch field {
                case 1:
                    if let value = try reader.readNumber(wireType) { response.id = UInt32(truncatingIfNeeded: value) }
                case 2:
                    if let value = try reader.readNumber(wireType) {
                        response.status = JacquardStatus(rawValue: Int32(truncatingIfNeeded: value))
                    }
                case 3:
                    if let value = try reader.readNumber(wireType) {
                        response.componentID = UInt32(truncatingIfNeeded: value)
                    }
                case Extension.hello, Extension.deviceInfo, Extension.batteryStatus:
                    if wireType == .lengthDelimited {
                        payload = try reader.readLengthDelimited()
                        payloadField = field
                    } else {
                        try reader.skipField(wireType)
                    }
                default:
                    try reader.skipField(wireType)
                }
            }
            switch payloadField {
            case Extension.hello: response.payload = .hello(try parseHello(payload))
            case Extension.deviceInfo: response.payload = .deviceInfo(try parseDeviceInfo(payload))
            case Extension.batteryStatus: response.payload = .batteryStatus(try parseBatteryStatus(payload))
            default: break
            }
        } catch {
            return JacquardDecodeError.Code(error)
        }
        emit(.response(response))
        return nil
    }

    /// Decodes a Hello payload (extension 100).
    static func parseHello(_ payload: UnsafeRawBufferPointer) throws(JacquardProtobufError) -> JacquardHello {
        var hello = JacquardHello(protocolMin: 0, protocolMax: 0, vendor: "", model: "", vendorID: 0, productID: 0)
        var reader = JacquardProtobufReader(payload)
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readTag()
            switch field {
            case 3: hello.vendor = try reader.readText(wireType)
            case 4: hello.model = try reader.readText(wireType)
            default:
                guard let value = try reader.readNumber(wireType) else { continue }
                let number = UInt32(truncatingIfNeeded: value)
                switch field {
                case 1: hello.protocolMin = number
                case 2: hello.protocolMax = number
                case 6: hello.vendorID = number
                case 7: hello.productID = number
                default: break
                }
            }
        }
        return hello
    }

    /// Decodes a DeviceInfo payload (extension 103).
    static func parseDeviceInfo(_ payload: UnsafeRawBufferPointer) throws(JacquardProtobufError) -> JacquardDeviceInfo {
        var info = JacquardDeviceInfo(
            vendor: "", model: "", revision: "", uuid: "",
            firmwareMajor: 0, firmwareMinor: 0, firmwarePoint: 0, vendorID: 0, productID: 0
        )
        var reader = JacquardProtobufReader(payload)
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readTag()
            switch field {
            case 1: info.vendor = try reader.readText(wireType)
            case 2: info.model = try reader.readText(wireType)
            case 3: info.revision = try reader.readText(wireType)
            case 4: info.uuid = try reader.readText(wireType)
            default:
                guard let value = try reader.readNumber(wireType) else { continue }
                let number = UInt32(truncatingIfNeeded: value)
                switch field {
                case 5: info.firmwareMajor = number
                case 6: info.firmwareMinor = number
                case 7: info.firmwarePoint = number
                case 11: info.vendorID = number
                case 12: info.productID = number
                default: break
                }
            }
        }
        return info
    }

    /// Decodes a raw-data notification: 2 header bytes (byte 1 the sensor
    /// id), then 16-byte IMU samples, one value each.
    @inlinable
    static func parseIMU(_ bytes: UnsafeRawBufferPointer, emit: (JacquardValue) -> Void) -> JacquardDecodeError.Code? {
        guard bytes.count >= 2 else { return .imuTooShort }
        guard (bytes.count &- 2) & 15 == 0 else { return .imuPartialSample }
        let sensorID = bytes[1]
        var offset = 2
        while offset < bytes.count {
            emit(.imuSample(JacquardIMUSample(sensorID: sensorID, reading: bytes, at: offset)))
            offset &+= JacquardIMUSample.size
        }
        return nil
    }
}
