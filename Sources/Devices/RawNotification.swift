/// One notification exactly as it arrived from a device: the bytes, the
/// characteristic that notified, and the host receive time.
///
/// Every decoded value comes from a raw notification, and the raw
/// notifications are recorded too (topic `/<family>/<device>/raw/c_<uuid hex>`),
/// so a recording can always be decoded again.
public struct RawNotification: Sendable, Hashable {
    /// The characteristic that notified.
    public var characteristic: CharacteristicUUID
    /// The notification's value, byte for byte.
    public var bytes: [UInt8]
    /// Host receive time in nanoseconds since the Unix epoch.
    public var receiveTime: UInt64

    /// Creates a raw notification.
    ///
    /// - Parameters:
    ///   - characteristic: The characteristic that notified.
    ///   - bytes: The value, byte for byte.
    ///   - receiveTime: Host receive time, nanoseconds since the Unix epoch.
    public init(characteristic: CharacteristicUUID, bytes: [UInt8], receiveTime: UInt64) {
        self.characteristic = characteristic
        self.bytes = bytes
        self.receiveTime = receiveTime
    }
}
