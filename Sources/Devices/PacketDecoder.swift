/// A device family's decoder: raw notifications in, typed values out.
///
/// One protocol for every family, so the recorder, `tlm decode` and replay
/// drive any decoder the same way. A decoder may be stateful (Jacquard
/// reassembles fragments per characteristic), so `decode` is `mutating`;
/// after a typed error it stays usable for the next notification.
///
/// Values are handed to `emit` rather than returned in an array, so a
/// decoder that produces several values from one notification allocates
/// nothing per value.
///
/// ```swift
/// var decoder = DiotDecoder()
/// try decoder.decode(notification) { value in print(value) }
/// ```
public protocol PacketDecoder: Sendable {
    /// The typed values this decoder produces.
    associatedtype Value: Sendable & Encodable
    /// The typed error for a malformed packet.
    associatedtype Failure: Error & Sendable & CustomStringConvertible

    /// The family this decoder belongs to.
    static var family: DeviceFamily { get }

    /// Decodes one notification, emitting zero or more values (a stateful
    /// decoder emits nothing until a message is complete).
    ///
    /// - Throws: `Failure` for a malformed packet; nothing is emitted for it
    ///   and the decoder stays usable. Never traps, whatever the bytes.
    mutating func decode(_ notification: RawNotification, emit: (Value) -> Void) throws(Failure)
}
