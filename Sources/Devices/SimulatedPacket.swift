/// What every family's simulator emits: a notification at an offset from the
/// simulation's start. The recorder and `tlm` drive any simulator through it.
public protocol SimulatedNotificationProtocol: Sendable {
    /// Time since the start of the simulation (non-decreasing).
    var offset: Duration { get }
    /// The characteristic that notifies.
    var characteristic: CharacteristicUUID { get }
    /// The value, in the family's wire format.
    var bytes: [UInt8] { get }
}

extension SimulatedNotificationProtocol {
    /// The notification as received, stamped `startTime + offset`.
    ///
    /// - Parameter startTime: Host time of the simulation start, nanoseconds since the Unix epoch.
    /// - Returns: A raw notification with this characteristic and bytes.
    public func rawNotification(startTime: UInt64) -> RawNotification {
        let (seconds, attoseconds) = offset.components
        let nanoseconds = UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
        return RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: startTime &+ nanoseconds)
    }
}

/// A seeded simulator of one family: notifications in time order.
public protocol NotificationSimulator: Sendable {
    /// The notifications it emits.
    associatedtype Notification: SimulatedNotificationProtocol
    /// The next notification in time order.
    mutating func next() -> Notification
}

/// A simulated notification with the one value it encodes as ground truth,
/// or `nil` when its bytes are deliberately malformed (the decoder must
/// throw). The recorder profiles' simulators emit these.
public struct SimulatedPacket<Expected: Sendable & Hashable>: SimulatedNotificationProtocol, RetimableNotification {
    public var offset: Duration
    public var characteristic: CharacteristicUUID
    public var bytes: [UInt8]
    /// The value the bytes encode, or `nil` for a malformed packet.
    public var expected: Expected?
    /// With a ``BLEDelivery``, when the device sent it: the truth, time since
    /// the start on the host's clock, never after ``offset``; `nil` without
    /// one. Never part of the bytes.
    public var measuredAt: Duration?

    /// Creates a simulated notification.
    ///
    /// - Parameters:
    ///   - offset: Time since the start of the simulation.
    ///   - characteristic: The characteristic that notifies.
    ///   - bytes: The value.
    ///   - expected: The encoded value, `nil` for a malformed packet.
    ///   - measuredAt: When the device sent it, with a delivery.
    public init(
        offset: Duration, characteristic: CharacteristicUUID, bytes: [UInt8], expected: Expected?,
        measuredAt: Duration? = nil
    ) {
        self.measuredAt = measuredAt
        self.offset = offset
        self.characteristic = characteristic
        self.bytes = bytes
        self.expected = expected
    }

    /// Whether the bytes are deliberately malformed.
    public var isMalformed: Bool { expected == nil }
}
