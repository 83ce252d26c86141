/// A seeded, deterministic model of how Bluetooth LE delivers a periodic
/// sensor's samples, with the truth of each: when it was measured, its
/// ticks, when it was received.
///
/// The device measures at a nominal rate on its own clock (``DeviceClock``:
/// offset, drift, wraparound, resets), optionally with jitter, and queues a
/// notification each time it holds ``Configuration/samplesPerNotification``
/// samples. The link delivers queued notifications at connection events
/// (every ``Configuration/connectionInterval`` on the host's clock, from an
/// anchor drawn at random), at most ``Configuration/notificationsPerEvent``
/// per event; a share of events fail and are retried at the next one
/// (``Configuration/retransmissionRate``, so a notification may wait one or
/// more intervals); the host receives each event's notifications after a
/// latency drawn per event, all at one instant unless
/// ``Configuration/packetSpacing`` spaces them. A supervision timeout drops
/// the link (``Configuration/connectedTime``): what was queued and what is
/// measured until the link is back is lost, and the anchor is drawn again.
///
/// ``next()`` returns the notifications in receive order; the same seed and
/// configuration give the same ones on every platform.
///
/// ```swift
/// var link = ConnectionEventDelivery(seed: 1, configuration: .init(sampleRate: 100, samplesPerNotification: 3))
/// let notification = link.next()
/// print(notification.samples.map { $0.receivedAt - $0.measuredAt }) // delays, ns
/// ```
public struct ConnectionEventDelivery: Sendable, Hashable {
    /// The device, the link and the faults.
    public struct Configuration: Sendable, Hashable {
        /// Samples per second on the device's clock.
        public var sampleRate: Double
        /// Samples per notification, 1 or more.
        public var samplesPerNotification: Int
        /// The device's tick counter.
        public var clock: DeviceClock
        /// Seconds of jitter on each measurement instant (zero-mean, within ± this).
        public var deviceJitter: Double
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
        /// Seconds the link stays down after each drop (the supervision
        /// timeout and the reconnection), drawn uniformly.
        public var disconnectedTime: ClosedRange<Double>
        /// The host time of the start, nanoseconds since the Unix epoch.
        public var startNanoseconds: Int64

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - sampleRate: Samples per second, device clock.
        ///   - samplesPerNotification: Samples per notification.
        ///   - clock: The tick counter (1 kHz, 32 bits, no drift).
        ///   - deviceJitter: Jitter of the measurement instants (none).
        ///   - connectionInterval: The connection interval (30 ms).
        ///   - latency: Event-to-receive latency (1–3 ms).
        ///   - packetSpacing: Spacing of one event's receive times (none).
        ///   - notificationsPerEvent: Notifications per event at most (6).
        ///   - retransmissionRate: Share of failing events (none).
        ///   - connectedTime: Time between supervision timeouts (never).
        ///   - disconnectedTime: Time the link stays down (4–5 s).
        ///   - startNanoseconds: The start on the host's clock.
        public init(
            sampleRate: Double, samplesPerNotification: Int = 1,
            clock: DeviceClock = DeviceClock(tickRate: 1000, tickBits: 32), deviceJitter: Double = 0,
            connectionInterval: Double = 0.030, latency: ClosedRange<Double> = 0.001...0.003,
            packetSpacing: Double = 0, notificationsPerEvent: Int = 6, retransmissionRate: Double = 0,
            connectedTime: ClosedRange<Double>? = nil, disconnectedTime: ClosedRange<Double> = 4...5,
            startNanoseconds: Int64 = 1_700_000_000_000_000_000
        ) {
            self.sampleRate = sampleRate
            self.samplesPerNotification = samplesPerNotification
            self.clock = clock
            self.deviceJitter = deviceJitter
            self.connectionInterval = connectionInterval
            self.latency = latency
            self.packetSpacing = packetSpacing
            self.notificationsPerEvent = notificationsPerEvent
            self.retransmissionRate = retransmissionRate
            self.connectedTime = connectedTime
            self.disconnectedTime = disconnectedTime
            self.startNanoseconds = startNanoseconds
        }
    }

    /// The configuration it was created with.
    public let configuration: Configuration
    private var link: ConnectionEventLink<[DeliveredSample]>
    private let samplePeriod: Double
    /// The next sample to measure, and its device time once drawn.
    private var nextSample: Int64 = 0
    private var nextDeviceTime: Double?
    private var forming: [DeliveredSample] = []

    /// Creates a delivery model.
    ///
    /// - Parameters:
    ///   - seed: Fixes the anchor, latencies, retransmissions, drops and jitter.
    ///   - configuration: The device and link; rates and counts must be
    ///     positive, the interval 7.5 ms…4 s, ranges not negative, the jitter
    ///     under half a sample period (checked with `precondition`).
    public init(seed: UInt64, configuration: Configuration) {
        let c = configuration
        precondition(c.sampleRate > 0 && c.sampleRate.isFinite, "sampleRate must be positive")
        precondition(c.samplesPerNotification >= 1, "samplesPerNotification must be positive")
        precondition(c.deviceJitter >= 0 && c.deviceJitter < 0.5 / c.sampleRate, "deviceJitter must be small")
        self.configuration = configuration
        samplePeriod = 1 / c.sampleRate
        link = ConnectionEventLink(
            random: SeededRandom(seed: seed ^ 0x424C_455F_4C49_4E4B),  // "BLE_LINK"
            delivery: c.delivery, startNanoseconds: c.startNanoseconds)
    }

    /// The next notification the host receives.
    public mutating func next() -> DeliveredNotification {
        while true {
            if let delivered = link.nextDelivered() {
                let samples = delivered.payload.map {
                    DeliveredSample(
                        index: $0.index, measuredAt: $0.measuredAt, ticks: $0.ticks, receivedAt: delivered.receivedAt)
                }
                return DeliveredNotification(
                    receivedAt: delivered.receivedAt, samples: samples, afterReconnect: delivered.afterReconnect)
            }
            connectionEvent()
        }
    }

    /// The notifications received in the first `seconds` of host time.
    ///
    /// - Parameter seconds: Host seconds from the start.
    public mutating func notifications(forSeconds seconds: Double) -> [DeliveredNotification] {
        let end = configuration.startNanoseconds + Int64((seconds * 1e9).rounded())
        var result: [DeliveredNotification] = []
        while true {
            let notification = next()
            guard notification.receivedAt < end else { break }
            result.append(notification)
        }
        return result
    }

    private func nanoseconds(_ seconds: Double) -> Int64 {
        configuration.startNanoseconds + Int64((seconds * 1e9).rounded())
    }

    /// Runs the next connection event: a supervision timeout first (what is
    /// measured until the link is back is lost), then everything measured
    /// by the event queued and delivered.
    private mutating func connectionEvent() {
        if let upAt = link.supervisionTimeout() {
            measure(until: upAt)
            forming.removeAll()
            link.reconnect(at: upAt)
        }
        measure(until: link.eventTime)
        link.connectionEvent()
    }

    /// Measures every sample up to host time `end`, queueing each full notification.
    private mutating func measure(until end: Double) {
        let c = configuration
        while true {
            let deviceTime = nextDeviceTime ?? Double(nextSample) * samplePeriod + link.random.noise(c.deviceJitter)
            let host = c.clock.hostSeconds(atDeviceSeconds: deviceTime)
            guard host <= end else {
                nextDeviceTime = deviceTime
                return
            }
            nextDeviceTime = nil
            forming.append(
                DeliveredSample(
                    index: nextSample, measuredAt: nanoseconds(host),
                    ticks: c.clock.ticks(atDeviceSeconds: max(0, deviceTime)),
                    receivedAt: 0))
            nextSample += 1
            if forming.count == c.samplesPerNotification {
                link.enqueue(forming, ready: host)
                forming.removeAll(keepingCapacity: true)
            }
        }
    }
}

extension ConnectionEventDelivery.Configuration {
    /// The clock and link settings, as a simulator takes them.
    public var delivery: BLEDelivery {
        BLEDelivery(
            clock: clock, connectionInterval: connectionInterval, latency: latency, packetSpacing: packetSpacing,
            notificationsPerEvent: notificationsPerEvent, retransmissionRate: retransmissionRate,
            connectedTime: connectedTime, disconnectedTime: disconnectedTime)
    }
}
