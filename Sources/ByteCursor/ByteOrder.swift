/// The order of a multi-byte value's bytes on the wire.
@usableFromInline
package enum ByteOrder: Sendable, Hashable {
    /// Least significant byte first (MCAP, CDR as we write it, BLE payloads, protobuf fixed fields).
    case little
    /// Most significant byte first (network order).
    case big
}
