public import Devices

/// A decoder of any family with its values type-erased: what tools that
/// handle every family alike (`tlm decode`, capture-file import) hold.
///
/// Made by ``FamilyDescriptor/makeDecoder(options:)``. Like the decoder it
/// wraps, it may keep state between notifications (Jacquard reassembles
/// fragments), stays usable after an error, and never traps.
public protocol FamilyDecoder: Sendable {
    /// Decodes one notification, emitting zero or more values.
    ///
    /// - Throws: The family's typed error for a malformed packet; its
    ///   `description` says what is wrong.
    mutating func decode(
        _ notification: RawNotification, emit: (any Encodable & Sendable) -> Void)
        throws(FamilyDecodingError)
}

/// A malformed packet, as a ``FamilyDecoder`` reports it: the family's own
/// error, described.
public struct FamilyDecodingError: Error, Sendable, CustomStringConvertible {
    /// The family decoder's error.
    public let underlying: any Error & Sendable
    /// What the family decoder says is wrong.
    public let description: String

    /// Wraps a family decoder's error.
    public init(_ underlying: some Error & Sendable & CustomStringConvertible) {
        self.underlying = underlying
        self.description = underlying.description
    }
}

/// The ``FamilyDecoder`` a descriptor hands out: a family's own decoder inside.
struct ErasedDecoder<Base: PacketDecoder>: FamilyDecoder {
    var base: Base

    mutating func decode(
        _ notification: RawNotification, emit: (any Encodable & Sendable) -> Void
    )
        throws(FamilyDecodingError)
    {
        do {
            try base.decode(notification) { value in emit(value) }
        } catch {
            throw FamilyDecodingError(error)
        }
    }
}
