/// The radio link of a simulated device: when it is connected and when a
/// notification generated at a nominal time reaches the host, under
/// ``LinkFaults`` (jitter, bursts, disconnects).
///
/// Shared by the DIoT, Comodule, Fjorden and Obvious simulators (Jacquard's
/// tag reports its disconnects itself and schedules its own). Connected
/// stretches shorter than 0.5 s count as 0.5 s and gaps are capped at a day,
/// so simulators never stall; negative or non-finite settings count as zero
/// (never). Delivery offsets never go backwards. Everything is drawn from
/// the seed.
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
    private let connectedTime: ClosedRange<Double>?
    private let disconnectGap: ClosedRange<Double>
    private var random: SeededRandom
    private var lastDelivery = 0.0
    private var burstEnd = -1.0
    private var disconnectAt: Double
    private var reconnectAt: Double

    /// The device's clock, with a ``BLEDelivery``: delivery offsets are then
    /// the host instants of the nominal (device) times, and no fault applies.
    private let clock: DeviceClock?

    /// Creates a link with `faults` (their malformed rate is the simulator's
    /// business); with a `clock` (a ``BLEDelivery``'s), no fault applies.
    init(seed: UInt64, faults: LinkFaults, clock: DeviceClock? = nil) {
        let faults = clock == nil ? faults : .clean
        self.clock = clock
        jitter = Self.sanitized(faults.jitter)
        burstProbability = min(Self.sanitized(faults.burstProbability), 1)
        burstHold = Self.sanitized(faults.burstHold)
        if let stretch = faults.connectedTime, stretch.upperBound.isFinite, stretch.upperBound > 0 {
            let lower = max(Self.sanitized(stretch.lowerBound), 0.5)
            connectedTime = lower...max(lower, stretch.upperBound)
        } else {
            connectedTime = nil
        }
        // At most a day, so a simulator always reaches its next delivery.
        let lower = min(Self.sanitized(faults.disconnectGap.lowerBound), 86_400)
        disconnectGap = lower...min(max(lower, Self.sanitized(faults.disconnectGap.upperBound)), 86_400)
        random = SeededRandom(seed: seed)
        disconnectAt = .infinity
        reconnectAt = .infinity
        if let connectedTime {
            disconnectAt = Self.uniform(connectedTime, &random)
            reconnectAt = disconnectAt + Self.uniform(disconnectGap, &random)
        }
    }

    /// Whether the link ever disconnects.
    var disconnects: Bool { connectedTime != nil }

    /// Whether the link delays deliveries (jitter or bursts).
    var delaysDeliveries: Bool { jitter > 0 || burstProbability > 0 }

    private static func sanitized(_ value: Double) -> Double {
        value.isFinite && value > 0 ? value : 0
    }

    /// The link state at nominal time `t` (seconds); call with non-decreasing times.
    mutating func state(at t: Double) -> State {
        var reconnected = false
        while true {
            if t < disconnectAt { return reconnected ? .reconnected : .connected }
            if t < reconnectAt { return .disconnected }
            reconnected = true
            guard let connectedTime else {
                disconnectAt = .infinity
                reconnectAt = .infinity
                continue
            }
            disconnectAt = reconnectAt + Self.uniform(connectedTime, &random)
            reconnectAt = disconnectAt + Self.uniform(disconnectGap, &random)
        }
    }

    /// When a notification generated at nominal time `t` (seconds) is delivered.
    mutating func deliveryOffset(nominal t: Double) -> Duration {
        if let clock {
            lastDelivery = max(clock.hostSeconds(atDeviceSeconds: t), lastDelivery)
            return Self.duration(seconds: lastDelivery)
        }
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
