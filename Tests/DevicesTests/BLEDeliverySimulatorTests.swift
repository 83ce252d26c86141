import Devices
import Testing

/// The simulators delivering as Bluetooth LE does (`BLEDelivery`): device
/// clocks, connection events, shared receive instants, supervision
/// timeouts, and the truth of every notification.
@Suite struct BLEDeliverySimulatorTests {
    /// 5 s before a 32-bit tick counter at 1 kHz wraps.
    static let nearWrap = UInt64(UInt32.max) - 4_999

    static func jacquard(
        seed: UInt64 = 1, driftPPM: Double = 200, interval: Double = 0.030,
        latency: ClosedRange<Double> = 0.001...0.003,
        retransmissions: Double = 0.01, connectedTime: ClosedRange<Double>? = nil
    ) -> JacquardSimulator {
        let delivery = BLEDelivery(
            clock: DeviceClock(tickRate: 1000, tickBits: 32, driftPPM: driftPPM, initialTicks: nearWrap),
            connectionInterval: interval, latency: latency, retransmissionRate: retransmissions,
            connectedTime: connectedTime, disconnectedTime: 2...2)
        return JacquardSimulator(seed: seed, configuration: .init(delivery: delivery))
    }

    static func diot(
        seed: UInt64 = 1, driftPPM: Double = -150, interval: Double = 0.030,
        latency: ClosedRange<Double> = 0.001...0.003,
        connectedTime: ClosedRange<Double>? = nil
    ) -> DiotSimulator {
        let delivery = BLEDelivery(
            clock: DeviceClock(tickRate: 1000, tickBits: 32, driftPPM: driftPPM), connectionInterval: interval,
            latency: latency, retransmissionRate: 0.01, connectedTime: connectedTime, disconnectedTime: 2...2)
        var configuration = DiotSimulator.Configuration.default
        configuration.delivery = delivery
        return DiotSimulator(seed: seed, configuration: configuration)
    }

    static func session<S: NotificationSimulator>(_ simulator: S, seconds: Double) -> [S.Notification] {
        var simulator = simulator
        var notifications: [S.Notification] = []
        while true {
            let notification = simulator.next()
            guard notification.offset < .nanoseconds(Int64(seconds * 1e9)) else { return notifications }
            notifications.append(notification)
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    @Test func jacquardIMUTicksFollowTheDriftingClockAcrossTheWrap() {
        let notifications = Self.session(Self.jacquard(), seconds: 20)
        var samples: [(ticks: UInt32, measuredAt: Duration)] = []
        for notification in notifications {
            for (value, measuredAt) in zip(notification.values, notification.measuredAt) {
                if case .imuSample(let sample) = value { samples.append((sample.timestampTicks, measuredAt)) }
            }
        }
        // 100 Hz for 20 s, none lost: sample n (from 1) is measured at n × 10 ms of device time,
        // which lasts 1.0002 × as long on the host, and carries the counter's ticks then, mod 2^32.
        #expect(samples.count >= 1_990)
        for (index, sample) in samples.enumerated() {
            let n = UInt64(index + 1)
            #expect(sample.ticks == UInt32((Self.nearWrap + n * 10) % (1 << 32)))
            let host = Double(n) * 0.01 * (1 + 200.0 / 1_000_000)
            #expect(abs(Self.nanoseconds(sample.measuredAt) - Int64(host * 1e9)) <= 1)
        }
        // The counter wrapped once, at 5 s of device time (2^32 − 5000 + 500 × 10).
        let wraps = zip(samples, samples.dropFirst()).filter { $1.ticks < $0.ticks }
        #expect(wraps.count == 1)
        #expect(wraps.first?.1.ticks == 0)
    }

    @Test(arguments: [0.0075, 0.030, 0.100])
    func notificationsArriveOnlyAtConnectionEvents(interval: Double) {
        // No latency: every receive instant is the anchor plus whole intervals.
        let notifications = Self.session(Self.jacquard(interval: interval, latency: 0...0), seconds: 20)
        let offsets = notifications.map { Self.nanoseconds($0.offset) }
        let anchor = offsets[0]
        let step = Int64((interval * 1e9).rounded())
        for offset in offsets {
            let events = ((Double(offset - anchor) / Double(step))).rounded()
            #expect(abs(offset - anchor - Int64(events) * step) <= 2)
        }
        #expect(zip(offsets, offsets.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func severalNotificationsShareAnInstant() {
        // DIoT: two 50 Hz channels and slower ones at a 30 ms interval; at most 6 per event.
        let notifications = Self.session(Self.diot(), seconds: 20)
        var groups: [Duration: Int] = [:]
        for notification in notifications { groups[notification.offset, default: 0] += 1 }
        #expect(groups.values.allSatisfy { $0 <= 6 })
        #expect(groups.values.filter { $0 >= 3 }.count > groups.count / 2)
        // 20 s × (50 + 50 + 1 + 0.5 + 1 + 0.2) ≈ 2054 data notifications, none lost; 1 % of events retried.
        let data = notifications.filter(\.isDataChannel)
        #expect((2_040...2_060).contains(data.count))
    }

    @Test func theTruthPrecedesEveryReceiveTime() {
        let jacquard = Self.session(Self.jacquard(connectedTime: 5...8), seconds: 30)
        #expect(
            jacquard.allSatisfy { notification in notification.measuredAt.allSatisfy { $0 <= notification.offset } })
        #expect(jacquard.allSatisfy { $0.measuredAt.count == $0.values.count })
        let diot = Self.session(Self.diot(connectedTime: 5...8), seconds: 30)
        for notification in diot where notification.isDataChannel {
            #expect(notification.measuredAt.map { $0 <= notification.offset } == true)
        }
        let delivery = BLEDelivery(connectionInterval: 0.050, retransmissionRate: 0.05)
        let fjorden = Self.session(FjordenSimulator(seed: 2, configuration: .init(delivery: delivery)), seconds: 60)
        let comodule = Self.session(ComoduleSimulator(seed: 2, configuration: .init(delivery: delivery)), seconds: 60)
        let obvious = Self.session(ObviousSimulator(seed: 2, configuration: .init(delivery: delivery)), seconds: 60)
        #expect(!fjorden.isEmpty && !comodule.isEmpty && !obvious.isEmpty)
        for packets in [
            fjorden.map { ($0.offset, $0.measuredAt) }, comodule.map { ($0.offset, $0.measuredAt) },
            obvious.map { ($0.offset, $0.measuredAt) },
        ] {
            #expect(packets.allSatisfy { offset, measuredAt in measuredAt.map { $0 <= offset } == true })
            #expect(zip(packets, packets.dropFirst()).allSatisfy { $0.0 <= $1.0 })
        }
    }

    @Test func aSupervisionTimeoutMakesAGapAndLosesWhatWasQueued() throws {
        // The link drops at the first connection event from 5 s and is back at 7 s.
        let notifications = Self.session(Self.diot(connectedTime: 5...5), seconds: 7.5)
        let gap = try #require(
            zip(notifications, notifications.dropFirst()).first { $1.offset - $0.offset > .seconds(1) })
        let (before, after) = gap
        #expect(before.offset < .milliseconds(5_034))
        #expect(after.offset >= .seconds(7))
        // Everything measured before the link was back and not yet delivered is lost: nothing
        // received after the gap was measured before 7 s, and the reconnect reports the rates again.
        let afterGap = notifications.filter { $0.offset >= .seconds(7) }
        #expect(afterGap.compactMap(\.measuredAt).allSatisfy { $0 >= .seconds(7) })
        #expect(after.characteristic == DiotGATT.ratesCommand)
        let measuredBefore = notifications.filter { $0.offset < .seconds(6) }.compactMap(\.measuredAt)
        #expect(measuredBefore.allSatisfy { $0 < .milliseconds(5_034) })
        // Channel 1 at 50 Hz: about 100 notifications (2 s and the queue) never arrive.
        let channel1 = notifications.filter { $0.isDataChannel && $0.channel == DiotChannel(rawValue: 1)! }
        let lost = 375 - channel1.count
        #expect((100...104).contains(lost))
    }

    @Test func diotReportsItsChannelRatesAtConnect() throws {
        var simulator = Self.diot()
        let first = simulator.next()
        #expect(first.characteristic == DiotGATT.ratesCommand)
        let rates: [(UInt8, UInt32)] = [(1, 20), (2, 20), (3, 1_000), (4, 2_000), (5, 1_000), (6, 5_000)]
        let expected = try rates.map { channel, milliseconds in
            DiotEvent.channelRate(channel: try #require(DiotChannel(rawValue: channel)), milliseconds: milliseconds)
        }
        #expect(first.expected == expected)
        #expect(try DiotDecoder().decodeEvents(first.bytes, from: first.characteristic) == first.expected)
    }

    @Test func diotChannelsRunAtTheirNominalRateOnTheDeviceClock() {
        let notifications = Self.session(Self.diot(driftPPM: -150), seconds: 10)
        let channel1 = notifications.filter { $0.isDataChannel && $0.channel == DiotChannel(rawValue: 1)! }
        for (k, notification) in channel1.enumerated() {
            let device = Double(k) * 0.02
            let expected = Int64(device * (1 - 150.0 / 1_000_000) * 1e9)
            #expect(notification.measuredAt.map { abs(Self.nanoseconds($0) - expected) <= 1 } == true)
        }
    }

    @Test func sameSeedSameSession() {
        let a = Self.session(Self.jacquard(seed: 4, connectedTime: 3...6), seconds: 20)
        let b = Self.session(Self.jacquard(seed: 4, connectedTime: 3...6), seconds: 20)
        let c = Self.session(Self.jacquard(seed: 5, connectedTime: 3...6), seconds: 20)
        #expect(a == b)
        #expect(a.map(\.offset) != c.map(\.offset))
        #expect(Self.session(Self.diot(seed: 4), seconds: 10) == Self.session(Self.diot(seed: 4), seconds: 10))
    }

    @Test func deliveredSessionsDecodeToTheirGroundTruth() {
        var configuration = JacquardSimulator.Configuration.stress
        configuration.delivery = BLEDelivery(
            clock: DeviceClock(tickRate: 1000, tickBits: 32, driftPPM: 100), retransmissionRate: 0.02,
            connectedTime: 10...20, disconnectedTime: 1...3)
        var simulator = JacquardSimulator(seed: 3, configuration: configuration)
        var decoder = JacquardDecoder()
        var mismatches = 0
        var malformed = 0
        for _ in 0..<5_000 {
            let notification = simulator.next()
            var values: [JacquardValue] = []
            do {
                try decoder.decode(notification.bytes, from: notification.characteristic) { values.append($0) }
                if notification.malformed != nil || values != notification.values { mismatches += 1 }
            } catch {
                malformed += 1
                if error.code != notification.malformed { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
        #expect(malformed > 10)
    }

    @Test func withoutADeliveryNothingChanges() {
        var plain = DiotSimulator(seed: 9)
        var same = DiotSimulator(seed: 9, configuration: .init(bindings: DiotSimulator.Configuration.default.bindings))
        for _ in 0..<200 {
            let notification = plain.next()
            #expect(notification == same.next())
            #expect(notification.measuredAt == nil)
        }
    }
}
