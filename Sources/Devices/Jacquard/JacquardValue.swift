/// A value decoded from a Jacquard tag: the ``JacquardDecoder``'s `Value`.
///
/// The `Codable` form is an object with one key, the case name, holding the
/// payload's own form, for example
/// `{"gesture":{"event":"doubleTap","component_id":0,"timestamp_ticks":0}}`.
///
/// ```swift
/// var decoder = JacquardDecoder()
/// let bytes: [UInt8] = [0xC0, 0x0B, 0x08, 0x08, 0x10, 0x05, 0xAA, 0x39, 0x04, 0x0A, 0x02, 0x08, 0x03]
/// try decoder.decode(bytes, from: JacquardGATT.notify) { print($0) }
/// // gesture(Devices.JacquardGestureEvent(gesture: brushOut, componentID: 0, timestampTicks: 0))
/// ```
public enum JacquardValue: Sendable, Hashable, Codable {
    /// A recognised gesture (notification, extension 917 `inference_data`).
    case gesture(JacquardGestureEvent)
    /// A touch frame (notification, extension 917 `touch_data`).
    case touchFrame(JacquardTouchFrame)
    /// One IMU sample (raw-data characteristic).
    case imuSample(JacquardIMUSample)
    /// A battery status notification (extension 121). A battery status in a
    /// response arrives as ``response(_:)``.
    case batteryStatus(JacquardBatteryStatus)
    /// Gear attached or detached (notification, extension 109).
    case attached(JacquardAttached)
    /// The tag is disconnecting (notification, extension 102).
    case disconnect(JacquardDisconnect)
    /// The tag reported a fault (notification, extension 117).
    case error(JacquardErrorNotification)
    /// A response (response characteristic), with its payload if known.
    case response(JacquardResponse)
    /// A notification envelope without a payload the decoder knows.
    case notification(JacquardNotification)

    enum CodingKeys: String, CodingKey {
        case gesture, touchFrame, imuSample, batteryStatus, attached, disconnect, error, response, notification
    }

    /// Encodes `{"<case>": <payload>}`.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .gesture(let value): try container.encode(value, forKey: .gesture)
        case .touchFrame(let value): try container.encode(value, forKey: .touchFrame)
        case .imuSample(let value): try container.encode(value, forKey: .imuSample)
        case .batteryStatus(let value): try container.encode(value, forKey: .batteryStatus)
        case .attached(let value): try container.encode(value, forKey: .attached)
        case .disconnect(let value): try container.encode(value, forKey: .disconnect)
        case .error(let value): try container.encode(value, forKey: .error)
        case .response(let value): try container.encode(value, forKey: .response)
        case .notification(let value): try container.encode(value, forKey: .notification)
        }
    }

    /// Decodes a value written by ``encode(to:)``.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` unless the object has exactly one known key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: container.codingPath,
                    debugDescription: "expected exactly one of \(CodingKeys.allNames)"
                )
            )
        }
        switch key {
        case .gesture: self = .gesture(try container.decode(JacquardGestureEvent.self, forKey: key))
        case .touchFrame: self = .touchFrame(try container.decode(JacquardTouchFrame.self, forKey: key))
        case .imuSample: self = .imuSample(try container.decode(JacquardIMUSample.self, forKey: key))
        case .batteryStatus: self = .batteryStatus(try container.decode(JacquardBatteryStatus.self, forKey: key))
        case .attached: self = .attached(try container.decode(JacquardAttached.self, forKey: key))
        case .disconnect: self = .disconnect(try container.decode(JacquardDisconnect.self, forKey: key))
        case .error: self = .error(try container.decode(JacquardErrorNotification.self, forKey: key))
        case .response: self = .response(try container.decode(JacquardResponse.self, forKey: key))
        case .notification: self = .notification(try container.decode(JacquardNotification.self, forKey: key))
        }
    }
}

extension JacquardValue.CodingKeys {
    /// Every key's name, for error messages.
    static var allNames: [String] {
        [.gesture, .touchFrame, .imuSample, .batteryStatus, .attached, .disconnect, .error, .response, .notification]
            .map { (key: Self) in key.stringValue }
    }
}
