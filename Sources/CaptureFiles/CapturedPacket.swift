/// One packet of a capture, whatever the file format: an HCI packet with
/// its direction and host timestamp, or a packet the importer does not use.
///
/// The readers turn each format's records into these, so everything above
/// them (L2CAP, ATT, GATT) is format-neutral.
public struct CapturedPacket: Sendable, Hashable {
    /// The latest time a recording holds, in nanoseconds since the Unix
    /// epoch (`Int64.max`: 2262-04-11T23:47:16Z); a capture with a later
    /// packet time is refused, never clamped.
    public static let latestTime = UInt64(Int64.max)

    /// The error for a packet time past ``latestTime``.
    static var timeOutOfRange: CaptureFileError {
        CaptureFileError(
            .malformed, "a packet's time is past 2262-04-11T23:47:16Z, later than a recording can hold")
    }

    /// What a packet is.
    public enum Kind: Sendable, Hashable {
        /// An HCI command (host to controller).
        case command
        /// HCI ACL data.
        case acl
        /// HCI synchronous (SCO) data.
        case sco
        /// An HCI event (controller to host).
        case event
        /// HCI isochronous data.
        case iso
        /// A Bluetooth LE link-layer packet from an over-the-air sniffer
        /// (`LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR`): the bytes start at the
        /// access address; `flags` are the pseudo-header's.
        case linkLayer(flags: UInt16)
        /// Something else (a monitor note, an index event, an unknown H4 type).
        case other
    }

    /// Which way a packet went.
    public enum Direction: Sendable, Hashable {
        /// Host to controller (or, over the air, central to peripheral).
        case sent
        /// Controller to host (or, over the air, peripheral to central).
        case received
        /// Not known (an over-the-air packet whose direction the sniffer did not tell).
        case unknown
    }

    /// What the packet is.
    public var kind: Kind
    /// Which way it went.
    public var direction: Direction
    /// Host timestamp, nanoseconds since the Unix epoch.
    public var time: UInt64
    /// The controller (Linux monitor captures can hold several); 0 otherwise.
    public var adapter: UInt16
    /// The packet's bytes, without any H4 type byte or pseudo-header.
    public var bytes: [UInt8]
    /// Bytes the packet had on the wire; more than `bytes.count` when the capture cut it.
    public var originalLength: Int
    /// Packets the capturing program says it dropped before this one (btsnoop's cumulative drops), if it says.
    public var cumulativeDrops: UInt64?

    /// Creates a packet.
    public init(
        kind: Kind, direction: Direction, time: UInt64, adapter: UInt16 = 0, bytes: [UInt8],
        originalLength: Int? = nil, cumulativeDrops: UInt64? = nil
    ) {
        self.kind = kind
        self.direction = direction
        self.time = time
        self.adapter = adapter
        self.bytes = bytes
        self.originalLength = originalLength ?? bytes.count
        self.cumulativeDrops = cumulativeDrops
    }

    /// Whether the capture kept fewer bytes than the packet had.
    public var isTruncated: Bool { originalLength > bytes.count }
}
