/// How a simulated device delivers its notifications as Bluetooth LE does:
/// its clock, and the link that carries what it queues to the host.
///
/// Set on a simulator's configuration (`delivery`), it replaces the
/// ``LinkFaults`` timing faults (jitter, bursts, disconnects; the malformed
/// rate still applies): the device schedules on its own ``clock`` (offset,
/// drift, wraparound), queues each notification when it is produced, and the
/// link delivers the queue at connection events every
/// ``connectionInterval``, at most ``notificationsPerEvent`` per event, a
/// share of events failing and retrying at the next one
/// (``retransmissionRate``), each event's notifications received after a
/// latency drawn per event, and supervision timeouts (``connectedTime``)
/// dropping the link, losing what was queued and what is produced until it
/// is back. The model is ``ConnectionEventDelivery``'s, driven by the
/// simulator's notifications instead of a periodic sensor.
///
/// ```swift
/// let delivery = BLEDelivery(clock: DeviceClock(tickRate: 1000, tickBits: 32, driftPPM: 150),
///                            connectionInterval: 0.0075, retransmissionRate: 0.01)
/// var simulator = JacquardSimulator(seed: 1, configuration: .init(delivery: delivery))
/// ```
public struct BLEDelivery: Sendable, Hashable {
    /// The device's clock: it schedules on it, and its ticks are what a
    /// family that sends device time (Jacquard) stamps with.
    public var clock: DeviceClock
    /// Seconds between connection events, 0.0075…4.
    public var connectionInterval: Double
    /// Seconds from a connection event to the host's receive time, drawn per event.
    public var latency: ClosedRange<Double>
    /// Seconds between the receive times of the notifications of one event.
    public var packetSpacing: Double
    /// The most notifications one connection event carries.
    public var notificationsPerEvent: Int
    /// The share of connection events with data that fail, 0…1.
    public var retransmissionRate: Double
    /// Seconds the link stays up between supervision timeouts, drawn
    /// uniformly; `nil` keeps it up.
    public var connectedTime: ClosedRange<Double>?
    /// Seconds the link stays down after each drop (the supervision timeout
    /// and the reconnection), drawn uniformly.
    public var disconnectedTime: ClosedRange<Double>

    /// Creates a delivery.
    ///
    /// - Parameters:
    ///   - clock: The device's clock (1 kHz, 32 bits, no drift).
    ///   - connectionInterval: The connection interval (30 ms).
    ///   - latency: Event-to-receive latency (1–3 ms).
    ///   - packetSpacing: Spacing of one event's receive times (none).
    ///   - notificationsPerEvent: Notifications per event at most (6).
    ///   - retransmissionRate: Share of failing events (none).
    ///   - connectedTime: Time between supervision timeouts (never).
    ///   - disconnectedTime: Time the link stays down (4–5 s).
    public init(
        clock: DeviceClock = DeviceClock(tickRate: 1000, tickBits: 32), connectionInterval: Double = 0.030,
        latency: ClosedRange<Double> = 0.001...0.003, packetSpacing: Double = 0, notificationsPerEvent: Int = 6,
        retransmissionRate: Double = 0, connectedTime: ClosedRange<Double>? = nil,
        disconnectedTime: ClosedRange<Double> = 4...5
    ) {
        self.clock = clock
        self.connectionInterval = connectionInterval
        self.latency = latency
        self.packetSpacing = packetSpacing
        self.notificationsPerEvent = notificationsPerEvent
        self.retransmissionRate = retransmissionRate
        self.connectedTime = connectedTime
        self.disconnectedTime = disconnectedTime
    }

    /// What is wrong with the settings, or `nil` when a simulator can use
    /// them: the interval within 7.5 ms…4 s, latency, spacing and gaps not
    /// negative and finite, at least one notification per event, the
    /// retransmission rate within 0…1, connected stretches positive.
    public var problem: String? {
        if !(0.0075...4).contains(connectionInterval) {
            return "the connection interval must be 7.5 ms…4 s, not \(connectionInterval * 1000) ms"
        }
        if !(latency.lowerBound >= 0 && latency.upperBound.isFinite) { return "the latency must not be negative" }
        if !(packetSpacing >= 0 && packetSpacing.isFinite) { return "the packet spacing must not be negative" }
        if notificationsPerEvent < 1 { return "a connection event carries at least one notification" }
        if !(0...1).contains(retransmissionRate) { return "the retransmission rate must be 0…1" }
        if !(disconnectedTime.lowerBound >= 0 && disconnectedTime.upperBound.isFinite) {
            return "the disconnected time must not be negative"
        }
        if let up = connectedTime, !(up.lowerBound > 0 && up.upperBound.isFinite) {
            return "the connected time must be positive"
        }
        return nil
    }
}

extension BLEDelivery {
    /// The link a recording session simulates (`tlm record --simulate`):
    /// 1–3 ms latency, one notification per 1.25 ms of the interval per
    /// event (at least 6: about 800 a second, what a 1M PHY link with long
    /// connection events carries, so a 200 Hz IMU on two channels keeps
    /// up), 1 % of events retried, and with `faults` a supervision timeout
    /// every 30–90 s that keeps the link down for 1–5 s.
    ///
    /// - Parameters:
    ///   - connectionInterval: Seconds between connection events, 0.0075…4.
    ///   - driftPPM: The device clock's drift, ppm.
    ///   - faults: Whether the link drops now and then.
    /// - Returns: The delivery.
    public static func session(
        connectionInterval: Double = 0.030, driftPPM: Double = 0, faults: Bool = false
    )
        -> BLEDelivery
    {
        BLEDelivery(
            clock: DeviceClock(tickRate: 1000, tickBits: 32, driftPPM: driftPPM),
            connectionInterval: connectionInterval,
            notificationsPerEvent: max(6, Int(connectionInterval / 0.00125)), retransmissionRate: 0.01,
            connectedTime: faults ? 30...90 : nil, disconnectedTime: 1...5)
    }
}
