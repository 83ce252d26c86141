/// How a simulated device's radio link misbehaves: the faults every family's
/// simulator takes (its configuration's `link`), so a scenario reads the same
/// in every family.
///
/// - **jitter**: each delivery is late by `U(0, jitter)` seconds;
/// - **bursts**: with probability `burstProbability` a delivery opens a hold
///   window of `burstHold` seconds; everything generated in it arrives at its
///   end, back to back (BLE connection-event batching);
/// - **disconnects**: the link stays up for a time drawn from
///   `connectedTime`, then drops for a gap drawn from `disconnectGap`;
///   nothing is delivered in a gap, and on reconnect the device says so in
///   its own way (it re-sends its state, or notifies the disconnect);
/// - **malformed packets**: with probability `malformedRate` a notification
///   is replaced by one that breaks the family's wire format, which its
///   decoder must reject with a typed error.
///
/// Times are in seconds, draws are uniform and come from the simulator's
/// seed. ``clean`` is a perfect link.
///
/// ```swift
/// var faults = LinkFaults.clean
/// faults.connectedTime = 20...40
/// faults.malformedRate = 0.01
/// var simulator = ObviousSimulator(seed: 1, configuration: .init(link: faults))
/// ```
public struct LinkFaults: Sendable, Hashable {
    /// The largest delay added to a delivery.
    public var jitter: Double
    /// The probability that a delivery opens a burst (hold) window.
    public var burstProbability: Double
    /// How long a burst window holds deliveries back.
    public var burstHold: Double
    /// How long the link stays up between disconnects; `nil` never disconnects.
    public var connectedTime: ClosedRange<Double>?
    /// How long a disconnect lasts.
    public var disconnectGap: ClosedRange<Double>
    /// The probability that a notification is replaced by a malformed one.
    public var malformedRate: Double

    /// Creates link faults; every fault is off unless given.
    ///
    /// - Parameters: See the properties of the same names.
    public init(
        jitter: Double = 0,
        burstProbability: Double = 0,
        burstHold: Double = 0.1,
        connectedTime: ClosedRange<Double>? = nil,
        disconnectGap: ClosedRange<Double> = 2...10,
        malformedRate: Double = 0
    ) {
        self.jitter = jitter
        self.burstProbability = burstProbability
        self.burstHold = burstHold
        self.connectedTime = connectedTime
        self.disconnectGap = disconnectGap
        self.malformedRate = malformedRate
    }

    /// A perfect link: no jitter, bursts, disconnects or malformed packets.
    public static let clean = LinkFaults()
}
