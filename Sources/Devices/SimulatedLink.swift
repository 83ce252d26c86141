/// The radio link of a simulated device: when it is connected and when a
/// notification generated at a nominal time reaches the host.
///
/// Shared by the DIoT, Comodule, Fjorden and Obvious simulators. Scenario:
/// - **disconnects**: after a connected stretch of `meanConnectedTime × U(0.5, 1.5)`
///   seconds the link drops for a gap drawn from `disconnectGap`; nothing is
///   delivered in the gap, and the first time after it reports `.reconnected`;
/// - **jitter**: each delivery is late by `U(0, jitter)` seconds;
/// - **bursts**: with probability `burstProbability` a delivery opens a hold
///   window of `burstHold` seconds; everything generated in it arrives at its
///   end, back to back (BLE connection-event batching).
///
/// A mean connected time below 1 s counts as 1 s and gaps are capped at a
/// day, so simulators never stall. Delivery offsets never go backwards.
/// Everything is drawn from the seed.
struct SimulatedLink: Sendable, Hashable {
    /// Whether the link carries a notification generated at some time.
    enum State: Sendable, Hashable {
        /// Connected, as before.
        case connected
        /// Connected again after a gap: the device re-sends its state.
        case reconnected
        /// In a disconnect gap: the notification is lost.
        case disconnected
    }

    private let jitter: Double
    private let burstProbability: Double
    private let burstHold: Double
    private let meanConnectedTime: Double?
    private let disconnectGap: ClosedRange<Double>
    private var random: SeededRandom
    private var lastDelivery = 0.0
    private var burstEnd = -1.0
    private var disconnectAt: Double
    private var reconnectAt: Double

    /// Creates a link; negative or non-finite settings count as zero (never).
    init(
        seed: UInt64,
        jitter: Double,
        burstProbability: Double,
        burstHold: Double,
        meanConnectedTime: Double?,
        disconnectGap: ClosedRange<Double>
    ) {
        self.jitter = Self.sanitized(jitter)
        self.burstProbability = min(Self.sanitized(burstProbability), 1)
        self.burstHold = Self.sanitized(burstHold)
        if let mean = meanConnectedTime, mean.isFinite, mean > 0 {
            self.meanConnectedTime = max(mean, 1)
        } else {
            self.meanConnectedTime = nil
        }
        // At most a day, so a simulator always reaches its next delivery.
        let lower = min(Self.sanitized(disconnectGap.lowerBound), 86_400)
        self.disconnectGap = lower...min(max(lower, Self.sanitized(disconnectGap.upperBound)), 86_400)
        random = SeededRandom(seed: seed)
        disconnectAt = .infinity
        reconnectAt = .infinity
        if let mean = self.meanConnectedTime {
            disconnectAt = mean * (0.5 + random.nextUnit())
            reconnectAt = disconnectAt + drawGap()
        }
    }

    private static func sanitized(_ value: Double) -> Double {
        value.isFinite && value > 0 ? value : 0
    }

    private mutating func drawGap() -> Double {
        disconnectGap.lowerBound + (disconnectGap.upperBound - disconnectGap.lowerBound) * random.nextUnit()
    }

    /// The link state at nominal time `t` (seconds); call with non-decreasing times.
    mutating func state(at t: Double) -> State {
        var reconnected = false
        while true {
            if t < disconnectAt { return reconnected ? .reconnected : .connected }
            if t < reconnectAt { return .disconnected }
            reconnected = true
            guard let mean = meanConnectedTime else {
                disconnectAt = .infinity
                reconnectAt = .infinity
                continue
            }
            disconnectAt = reconnectAt + mean * (0.5 + random.nextUnit())
            reconnectAt = disconnectAt + drawGap()
        }
    }

    /// When a notification generated at nominal time `t` (seconds) is delivered.
    mutating func deliveryOffset(nominal t: Double) -> Duration {
        var delivery = t + (jitter > 0 ? random.nextUnit() * jitter : 0)
        if delivery < burstEnd {
            delivery = burstEnd
        } else if burstProbability > 0, random.nextUnit() < burstProbability {
            burstEnd = t + burstHold
            delivery = max(delivery, burstEnd)
        }
        delivery = max(delivery, lastDelivery)
        lastDelivery = delivery
        return Self.duration(seconds: delivery)
    }

    /// Seconds as a `Duration`, rounded down to the nanosecond and clamped to
    /// `0...2^62` ns, so no input traps.
    static func duration(seconds: Double) -> Duration {
        let nanoseconds = seconds * 1e9
        guard nanoseconds.isFinite, nanoseconds > 0 else { return .zero }
        return .nanoseconds(nanoseconds < 0x1p62 ? Int64(nanoseconds) : 1 << 62)
    }

    /// A uniform draw in `range`, from `random`.
    static func uniform(_ range: ClosedRange<Double>, _ random: inout SeededRandom) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * random.nextUnit()
    }
}
