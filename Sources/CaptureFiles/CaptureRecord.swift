/// What a reader's ``CapturePacketReader/next(analyzing:keepingBytes:)``
/// read: the common case of a capture, a packet that is one whole
/// notification or indication, already taken by the analyzer; or any other
/// packet, for the analyzer's ``HCITrafficAnalyzer/add(_:into:)``.
enum CaptureRecord {
    /// A value the analyzer took, with its packet's host time (its bytes
    /// only when asked to keep them); the analyzer's
    /// ``HCITrafficAnalyzer/peer(on:)`` names the link's peer.
    case value(link: CaptureLink, handle: UInt16, kind: CaptureEvent.ValueKind, bytes: [UInt8], time: UInt64)
    /// Any other packet, not yet given to the analyzer.
    case packet(CapturedPacket)

    /// The packet's host time.
    var time: UInt64 {
        switch self {
        case .value(_, _, _, _, let time): time
        case .packet(let packet): packet.time
        }
    }
}
