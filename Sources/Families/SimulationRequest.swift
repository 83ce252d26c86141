/// What a family's simulator is asked for: a seed (already distinct per
/// family, see ``FamilyRegistry/simulator(of:seed:faults:rate:)``), whether
/// to inject link faults and malformed packets, and an optional notification
/// rate for families whose simulator takes one (DIoT: an IMU at that rate).
public struct SimulationRequest: Sendable, Hashable {
    /// The family's seed.
    public var seed: UInt64
    /// Inject the family's faults (malformed packets, gaps).
    public var faults: Bool
    /// Notifications per second, for simulators that take a rate; others ignore it.
    public var rate: Double?

    /// Creates a request.
    public init(seed: UInt64, faults: Bool = false, rate: Double? = nil) {
        self.seed = seed
        self.faults = faults
        self.rate = rate
    }
}
