public import Devices

/// What a family's simulator is asked for: a seed (already distinct per
/// family, see ``FamilyRegistry/simulator(of:seed:faults:rate:delivery:)``),
/// whether to inject link faults and malformed packets, an optional
/// notification rate for families whose simulator takes one (DIoT: an IMU at
/// that rate), and whether to deliver as Bluetooth LE does.
public struct SimulationRequest: Sendable, Hashable {
    /// The family's seed.
    public var seed: UInt64
    /// Inject the family's faults (malformed packets, gaps).
    public var faults: Bool
    /// Notifications per second, for simulators that take a rate; others ignore it.
    public var rate: Double?
    /// Deliver as BLE does (a drifting device clock, connection events,
    /// retransmissions, supervision timeouts), or `nil` to stamp each
    /// notification when it is due. With faults, the family's malformed
    /// packets stay; its jitter, bursts and disconnects give way to the delivery's.
    public var delivery: BLEDelivery?

    /// Creates a request.
    public init(seed: UInt64, faults: Bool = false, rate: Double? = nil, delivery: BLEDelivery? = nil) {
        self.seed = seed
        self.faults = faults
        self.rate = rate
        self.delivery = delivery
    }
}
