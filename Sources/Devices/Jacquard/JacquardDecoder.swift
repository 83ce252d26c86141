/// Decodes Jacquard tag notifications into typed values.
///
/// The characteristic sets the message kind:
/// - response (`D2F2B8D0-…`): fragments reassembled into a Response
///   envelope, emitted as ``JacquardValue/response(_:)`` with its Hello,
///   DeviceInfo or BatteryStatus payload;
/// - notify (`D2F2B8D1-…`): fragments reassembled into a Notification
///   envelope; its extension gives a gesture, touch frame, battery status,
///   attach/detach, disconnect or error value (otherwise the bare
///   ``JacquardValue/notification(_:)``);
/// - raw data (`D2F2B8D2-…`): not fragmented; an IMU notification, one
///   ``JacquardValue/imuSample(_:)`` per 16-byte sample;
/// - command (`D2F2EABB-…`) carries app-to-tag requests and is rejected.
///
/// The decoder is stateful: it reassembles fragments per characteristic and
/// emits nothing until a message is complete. After an error it stays usable.
/// The hot path allocates nothing: a single-fragment message is parsed in
/// place, multi-fragment messages go through a reused 1024-byte buffer, and
/// the protobuf reader works on borrowed bytes.
///
/// ```swift
/// var decoder = JacquardDecoder()
/// let battery: [UInt8] = [0xC0, 0x0D, 0x08, 0x00, 0x10, 0x17, 0x18, 0x00, 0xCA, 0x07, 0x04, 0x08, 0x32, 0x10, 0x02]
/// try decoder.decode(RawNotification(characteristic: JacquardGATT.notify, bytes: battery, receiveTime: 0)) { value in
///     print(value) // batteryStatus(Devices.JacquardBatteryStatus(batteryLevel: 50, chargingStatus: notCharging))
/// }
/// ```
public struct JacquardDecoder: PacketDecoder, Sendable {
    /// The values this decoder emits.
    public typealias Value = JacquardValue
    /// The error for a malformed notification.
    public typealias Failure = JacquardDecodeError

    /// ``DeviceFamily/jacquard``.
    @inlinable
    public static var family: DeviceFamily { .jacquard }

    /// Reassembles the response characteristic's fragments.
    @usableFromInline
    var responses: JacquardReassembler
    /// Reassembles the notify characteristic's fragments.
    @usableFromInline
    var notifications: JacquardReassembler

    /// Creates a decoder with no message in progress.
    public init() {
        responses = JacquardReassembler(characteristic: JacquardGATT.response)
        notifications = JacquardReassembler(characteristic: JacquardGATT.notify)
    }

    /// Whether a fragmented message is in progress on a characteristic.
    ///
    /// - Parameter characteristic: The response or notify characteristic.
    /// - Returns: `true` when a FIRST fragment arrived without its LAST.
    public func isReassembling(_ characteristic: JacquardCharacteristic) -> Bool {
        switch characteristic {
        case .response: responses.isInProgress
        case .notify: notifications.isInProgress
        case .command, .rawData: false
        }
    }

    /// Drops any message in progress on every characteristic (for example after a reconnect).
    public mutating func reset() {
        responses.reset()
        notifications.reset()
    }

    /// Decodes one notification, emitting zero or more values.
    ///
    /// - Parameters:
    ///   - notification: The notification, from any characteristic.
    ///   - emit: Called once per decoded value, in order.
    /// - Throws: ``JacquardDecodeError`` for a malformed notification or a
    ///   characteristic that is not decoded; nothing is emitted for it.
    @inlinable
    public mutating func decode(
        _ notification: RawNotification,
        emit: (JacquardValue) -> Void
    ) throws(JacquardDecodeError) {
        try decode(notification.bytes, from: notification.characteristic, emit: emit)
    }

    /// Decodes a value notified by a characteristic.
    ///
    /// ```swift
    /// var decoder = JacquardDecoder()
    /// try decoder.decode([0xC0, 0x0B, 0x08, 0x08, 0x10, 0x05, 0xAA, 0x39, 0x04, 0x0A, 0x02, 0x08, 0x07],
    ///                    from: JacquardGATT.notify) { print($0) } // gesture(… shortCover …)
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The notification's value.
    ///   - characteristic: The characteristic that notified.
    ///   - emit: Called once per decoded value, in order.
    /// - Throws: ``JacquardDecodeError`` for a malformed value or a
    ///   characteristic that is not decoded; nothing is emitted for it.
    @inlinable
    public mutating func decode(
        _ bytes: [UInt8],
        from characteristic: CharacteristicUUID,
        emit: (JacquardValue) -> Void
    ) throws(JacquardDecodeError) {
        let failure = bytes.withUnsafeBytes { buffer in
            decodeValue(buffer, from: characteristic, emit: emit)
        }
        if let failure {
            throw JacquardDecodeError(code: failure, characteristic: characteristic, length: bytes.count)
        }
    }

    /// Decodes a value straight from memory.
    ///
    /// - Parameters:
    ///   - bytes: The notification's value; only borrowed.
    ///   - characteristic: The characteristic that notified.
    ///   - emit: Called once per decoded value, in order.
    /// - Throws: ``JacquardDecodeError`` for a malformed value or a
    ///   characteristic that is not decoded; nothing is emitted for it.
    @inlinable
    public mutating func decode(
        bytes: UnsafeRawBufferPointer,
        from characteristic: CharacteristicUUID,
        emit: (JacquardValue) -> Void
    ) throws(JacquardDecodeError) {
        if let failure = decodeValue(bytes, from: characteristic, emit: emit) {
            throw JacquardDecodeError(code: failure, characteristic: characteristic, length: bytes.count)
        }
    }

    /// Routes one value by characteristic; returns the error code, or `nil` on success.
    @inlinable
    mutating func decodeValue(
        _ bytes: UnsafeRawBufferPointer,
        from characteristic: CharacteristicUUID,
        emit: (JacquardValue) -> Void
    ) -> JacquardDecodeError.Code? {
        guard let kind = JacquardCharacteristic(characteristic) else { return .unknownCharacteristic }
        switch kind {
        case .notify:
            switch notifications.consume(bytes) {
            case .incomplete: return nil
            case .inPlace(let start):
                return JacquardMessageParser.parseNotification(
                    UnsafeRawBufferPointer(rebasing: bytes[start...]), emit: emit)
            case .buffered:
                return notifications.buffer.withUnsafeBytes { JacquardMessageParser.parseNotification($0, emit: emit) }
            case .failure(let code): return code
            }
        case .rawData:
            return JacquardMessageParser.parseIMU(bytes, emit: emit)
        case .response:
            switch responses.consume(bytes) {
            case .incomplete: return nil
            case .inPlace(let start):
                return JacquardMessageParser.parseResponse(
                    UnsafeRawBufferPointer(rebasing: bytes[start...]), emit: emit)
            case .buffered:
                return responses.buffer.withUnsafeBytes { JacquardMessageParser.parseResponse($0, emit: emit) }
            case .failure(let code): return code
            }
        case .command:
            return .commandCharacteristic
        }
    }
}
