/// A simulator whose notifications can go through a ``ConnectionEventLink``
/// (its configuration's ``BLEDelivery``): ``deliverNext()`` queues what
/// ``produce()`` makes at the instants it makes it and hands notifications
/// back as the link delivers them, with their offsets set to the receive
/// instants. One loop for every family, so they all deliver alike.
protocol BLEDeliveringSimulator {
    /// The simulator's notifications.
    associatedtype Produced: RetimableNotification
    /// The link, `nil` when the simulator does not deliver as BLE does.
    var bleLink: ConnectionEventLink<Produced>? { get set }
    /// The notification produced but not yet due at a connection event.
    var bleUpcoming: Produced? { get set }
    /// The next notification in production order, its offset the host
    /// instant it is produced (on the device's clock, mapped to the host's).
    mutating func produce() -> Produced
    /// What the device sends when the link is back after a supervision
    /// timeout, at `seconds` from the start (queued at that instant).
    mutating func reconnectNotifications(at seconds: Double) -> [Produced]
}

/// A simulated notification whose offset the link sets.
protocol RetimableNotification: Sendable, Hashable {
    /// Time since the start of the simulation.
    var offset: Duration { get set }
}

extension BLEDeliveringSimulator {
    /// Nothing is re-sent on reconnect unless the family says so.
    mutating func reconnectNotifications(at seconds: Double) -> [Produced] { [] }

    /// The next notification the host receives (call only with a link).
    mutating func deliverNext() -> Produced {
        while true {
            if let delivered = bleLink!.nextDelivered() {
                var notification = delivered.payload
                notification.offset = .nanoseconds(delivered.receivedAt)
                return notification
            }
            if let upAt = bleLink!.supervisionTimeout() {
                // What is produced while the link is down is lost.
                var upcoming = bleUpcoming ?? produce()
                while Self.seconds(upcoming.offset) < upAt { upcoming = produce() }
                bleUpcoming = upcoming
                bleLink!.reconnect(at: upAt)
                for notification in reconnectNotifications(at: upAt) { bleLink!.enqueue(notification, ready: upAt) }
            }
            let eventTime = bleLink!.eventTime
            while true {
                let upcoming = bleUpcoming ?? produce()
                let ready = Self.seconds(upcoming.offset)
                guard ready <= eventTime else {
                    bleUpcoming = upcoming
                    break
                }
                bleLink!.enqueue(upcoming, ready: ready)
                bleUpcoming = nil
            }
            bleLink!.connectionEvent()
        }
    }

    /// A non-negative offset in seconds.
    static func seconds(_ offset: Duration) -> Double {
        let (seconds, attoseconds) = offset.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}

extension ConnectionEventLink {
    /// A simulator's link, or `nil` without a delivery: its generator is
    /// seeded from the simulator's seed alone, its times are offsets (start 0).
    ///
    /// - Parameters:
    ///   - seed: The simulator's seed.
    ///   - delivery: The simulator's delivery, if any.
    static func simulated(seed: UInt64, delivery: BLEDelivery?) -> Self? {
        delivery.map {
            Self(random: SeededRandom(seed: seed ^ 0x424C_455F_4C49_4E4B), delivery: $0, startNanoseconds: 0)
        }
    }
}
