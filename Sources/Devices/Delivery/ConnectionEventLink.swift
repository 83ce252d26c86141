/// The link half of the delivery model: connection events, retransmissions,
/// latency and supervision timeouts applied to whatever is queued at given
/// host instants. ``ConnectionEventDelivery`` queues a periodic sensor's
/// notifications into it; the simulators queue theirs (``BLEDeliveringSimulator``).
///
/// A pure state machine driven in steps, so the producer fills the queue
/// between them from the same generator: ``supervisionTimeout()`` (and then
/// ``reconnect(at:)``), ``enqueue(_:ready:)`` for everything produced up to
/// ``eventTime``, ``connectionEvent()``, then ``nextDelivered()``. Times are
/// host seconds from the start.
struct ConnectionEventLink<Payload: Sendable & Hashable>: Sendable, Hashable {
    /// One delivered payload.
    struct Delivered: Sendable, Hashable {
        /// When the host received it, `startNanoseconds` plus the link's time.
        var receivedAt: Int64
        /// What was queued.
        var payload: Payload
        /// Whether the link dropped since the previous delivery.
        var afterReconnect: Bool
    }

    private struct Queued: Sendable, Hashable {
        var ready: Double
        var payload: Payload
    }

    /// The link's settings.
    let delivery: BLEDelivery
    /// The host time of the start, nanoseconds.
    let startNanoseconds: Int64
    /// The generator of every draw (the producer may draw from it too).
    var random: SeededRandom
    /// The next connection event, host seconds since the start.
    private(set) var eventTime: Double
    private var downFrom = Double.infinity
    private var reconnected = false
    private var queue: [Queued] = []
    private var queueHead = 0
    private var outbox: [Delivered] = []
    private var outboxHead = 0

    /// Creates a link; draws the anchor, then the first connected stretch.
    ///
    /// - Parameters:
    ///   - random: The generator, already seeded.
    ///   - delivery: The settings (checked with `precondition`: ``BLEDelivery/problem`` is `nil`).
    ///   - startNanoseconds: The host time of the start.
    init(random: SeededRandom, delivery: BLEDelivery, startNanoseconds: Int64) {
        if let problem = delivery.problem { preconditionFailure(problem) }
        self.delivery = delivery
        self.startNanoseconds = startNanoseconds
        self.random = random
        eventTime = self.random.nextUnit() * delivery.connectionInterval
        if let up = delivery.connectedTime { downFrom = Self.draw(up, &self.random) }
    }

    static func draw(_ range: ClosedRange<Double>, _ random: inout SeededRandom) -> Double {
        range.lowerBound + random.nextUnit() * (range.upperBound - range.lowerBound)
    }

    /// The host seconds when the link is back, drawn, if it is down at the
    /// next connection event (a supervision timeout); `nil` while it is up.
    /// The producer then drops what it produces before that instant and
    /// calls ``reconnect(at:)``.
    mutating func supervisionTimeout() -> Double? {
        guard eventTime >= downFrom else { return nil }
        return downFrom + Self.draw(delivery.disconnectedTime, &random)
    }

    /// Reconnects at `upAt`: the queue is lost, the anchor and the next
    /// connected stretch are drawn.
    mutating func reconnect(at upAt: Double) {
        queue.removeAll(keepingCapacity: true)
        queueHead = 0
        eventTime = upAt + random.nextUnit() * delivery.connectionInterval
        downFrom = delivery.connectedTime.map { upAt + Self.draw($0, &random) } ?? .infinity
        reconnected = true
    }

    /// Queues a payload produced at host second `ready` (in non-decreasing order).
    mutating func enqueue(_ payload: Payload, ready: Double) {
        queue.append(Queued(ready: ready, payload: payload))
    }

    /// Runs the connection event at ``eventTime`` (everything produced by
    /// then queued) and moves to the next one.
    mutating func connectionEvent() {
        let d = delivery
        defer { eventTime += d.connectionInterval }
        guard queueHead < queue.count, queue[queueHead].ready <= eventTime else { return }
        if random.nextUnit() < d.retransmissionRate { return }
        let receive = eventTime + Self.draw(d.latency, &random)
        var sent = 0
        while sent < d.notificationsPerEvent, queueHead < queue.count, queue[queueHead].ready <= eventTime {
            let seconds = receive + Double(sent) * d.packetSpacing
            outbox.append(
                Delivered(
                    receivedAt: startNanoseconds + Int64((seconds * 1e9).rounded()), payload: queue[queueHead].payload,
                    afterReconnect: reconnected))
            queueHead += 1
            reconnected = false
            sent += 1
        }
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else if queueHead >= 64, queueHead * 2 >= queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
    }

    /// The next delivered payload, in receive order, or `nil` when the
    /// events run so far delivered nothing more.
    mutating func nextDelivered() -> Delivered? {
        guard outboxHead < outbox.count else {
            if outboxHead > 0 {
                outbox.removeAll(keepingCapacity: true)
                outboxHead = 0
            }
            return nil
        }
        defer { outboxHead += 1 }
        return outbox[outboxHead]
    }
}
