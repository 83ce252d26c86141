public import Devices

/// What the HCI traffic of a capture says, one fact at a time: the input
/// of the inventory (first pass) and of the extraction (second pass).
public enum CaptureEvent: Sendable, Hashable {
    /// An advertisement or scan response of `peer`.
    case advertisement(peer: CapturePeer, data: AdvertisingData, time: UInt64)
    /// `peer` connected on `link`.
    case connected(link: CaptureLink, peer: CapturePeer, time: UInt64)
    /// The connection on `link` to `peer` ended; `reason` is the HCI reason code.
    case disconnected(link: CaptureLink, peer: CapturePeer, reason: UInt8, time: UInt64)
    /// A value `peer`'s GATT server sent: a notification, an indication, one
    /// value of a multiple-handle notification, or a read response.
    case value(peer: CapturePeer, handle: UInt16, bytes: [UInt8], kind: ValueKind, time: UInt64)
    /// A value the host wrote to `peer` (write request, command or signed write).
    case write(peer: CapturePeer, handle: UInt16, bytes: [UInt8], time: UInt64)
    /// Discovery: the characteristic whose value is at `handle` has `uuid`
    /// (a characteristic declaration, or a read by type of that UUID).
    case characteristic(peer: CapturePeer, handle: UInt16, uuid: CharacteristicUUID)
    /// Discovery: the attribute at `handle` has type `uuid` (Find Information).
    case attribute(peer: CapturePeer, handle: UInt16, uuid: CharacteristicUUID)
    /// Discovery: `peer` has the primary service `uuid`.
    case service(peer: CapturePeer, uuid: CharacteristicUUID)
    /// Data lost: `count` packets (0 when unknown), of `peer` when known.
    case loss(peer: CapturePeer?, time: UInt64, count: Int, reason: String)

    /// How a value reached the host.
    public enum ValueKind: String, Sendable, Hashable {
        /// Handle Value Notification (0x1B).
        case notification
        /// Handle Value Indication (0x1D).
        case indication
        /// Multiple Handle Value Notification (0x23).
        case multipleNotification = "multiple-notification"
        /// Read, Read Blob or Read By Type response.
        case read
    }
}
