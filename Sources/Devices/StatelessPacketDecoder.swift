/// A ``PacketDecoder`` that keeps nothing between notifications: each one
/// decodes to exactly one value, or one typed error, by its characteristic
/// and bytes alone.
///
/// A conformer writes ``decode(_:from:)``; decoding a ``RawNotification``,
/// and the ``PacketDecoder`` form that hands the value to `emit`, come with
/// the protocol.
///
/// ```swift
/// let decoder = ObviousDecoder()
/// let message = try decoder.decode(notification)          // one value, or a typed error
/// try decoder.decode(notification) { message in print(message) }
/// ```
public protocol StatelessPacketDecoder: PacketDecoder {
    /// Decodes a value notified by a characteristic.
    ///
    /// - Parameters:
    ///   - bytes: The notification's value.
    ///   - characteristic: The characteristic that notified.
    /// - Returns: The decoded value.
    /// - Throws: `Failure` for an unknown characteristic or a malformed
    ///   value. Never traps, whatever the bytes.
    func decode(_ bytes: [UInt8], from characteristic: CharacteristicUUID) throws(Failure) -> Value
}

extension StatelessPacketDecoder {
    /// Decodes a raw notification: its bytes, from its characteristic.
    ///
    /// - Parameter notification: The notification, from any characteristic.
    /// - Returns: The decoded value.
    /// - Throws: `Failure` as ``decode(_:from:)``.
    public func decode(_ notification: RawNotification) throws(Failure) -> Value {
        try decode(notification.bytes, from: notification.characteristic)
    }

    /// Decodes one notification and emits its value (the ``PacketDecoder`` form).
    ///
    /// - Parameters:
    ///   - notification: The notification.
    ///   - emit: Called once with the value; not called on error.
    /// - Throws: `Failure` as ``decode(_:from:)``.
    public mutating func decode(_ notification: RawNotification, emit: (Value) -> Void) throws(Failure) {
        emit(try decode(notification))
    }
}
