import Devices
import Testing

@Suite struct ConnectionEventDeliveryTests {
    static func configuration(
        interval: Double = 0.030, drift: Double = 0, retransmissions: Double = 0.01, bits: Int = 32
    ) -> ConnectionEventDelivery.Configuration {
        .init(
            sampleRate: 100, samplesPerNotification: 3,
            clock: DeviceClock(tickRate: 1000, tickBits: bits, driftPPM: drift, initialTicks: 500),
            connectionInterval: interval, retransmissionRate: retransmissions)
    }

    @Test func sameSeedSameDeliveries() {
        var a = ConnectionEventDelivery(seed: 3, configuration: Self.configuration())
        var b = ConnectionEventDelivery(seed: 3, configuration: Self.configuration())
        var c = ConnectionEventDelivery(seed: 4, configuration: Self.configuration())
        let first = a.notifications(forSeconds: 10)
        #expect(first == b.notifications(forSeconds: 10))
        #expect(first != c.notifications(forSeconds: 10))
    }

    @Test(arguments: [0.0075, 0.030, 0.100])
    func deliveredAtConnectionEventsAfterTheTruth(interval: Double) {
        var link = ConnectionEventDelivery(seed: 1, configuration: Self.configuration(interval: interval))
        let notifications = link.notifications(forSeconds: 30)
        let samples = notifications.flatMap(\.samples)
        #expect(samples.count > 2900)
        // Every sample, in order, received after it was measured, by at least the 1 ms latency.
        #expect(samples.map(\.index) == Array(0..<Int64(samples.count)))
        #expect(samples.allSatisfy { $0.receivedAt - $0.measuredAt >= 1_000_000 })
        // Receive times lie on the event grid, give or take the 1–3 ms latency.
        let receive = notifications.map(\.receivedAt)
        for (a, b) in zip(receive, receive.dropFirst()) where a != b {
            let intervals = (Double(b - a) / 1e9 / interval).rounded()
            #expect(abs(Double(b - a) / 1e9 - intervals * interval) <= 0.002 + 1e-9)
        }
        // Delays: the longest is one interval, the notification's span (20 ms) and the latency, or a
        // retransmission or more later.
        let delays = samples.map { Double($0.receivedAt - $0.measuredAt) / 1e9 }
        let late = delays.filter { $0 > interval + 0.020 + 0.003 }.count
        #expect(late > 0 && late < samples.count / 20)
    }

    @Test func theDeviceClockDriftsAndWraps() {
        var link = ConnectionEventDelivery(
            seed: 1, configuration: Self.configuration(drift: 200, retransmissions: 0, bits: 16))
        let samples = link.notifications(forSeconds: 100).flatMap(\.samples)
        let start = link.configuration.startNanoseconds
        for sample in samples {
            // Sample n is measured at n × 10 ms of device time, which lasts 1.0002 × as long on the host.
            let deviceSeconds: Double = Double(sample.index) * 0.01
            let hostSeconds: Double = deviceSeconds * (1 + 200.0 / 1_000_000)
            let expected = Int64((hostSeconds * 1e9).rounded())
            #expect(sample.measuredAt - start == expected)
            #expect(sample.ticks == (500 + UInt64(sample.index) * 10) % 65_536)
        }
    }

    @Test func supervisionTimeoutsLoseWhatWasQueued() {
        var configuration = Self.configuration()
        configuration.connectedTime = 10...10
        configuration.disconnectedTime = 4...4
        var link = ConnectionEventDelivery(seed: 1, configuration: configuration)
        let notifications = link.notifications(forSeconds: 60)
        #expect(notifications.filter(\.afterReconnect).count == 4)
        for (a, b) in zip(notifications, notifications.dropFirst()) where b.afterReconnect {
            #expect(b.receivedAt - a.receivedAt >= 4_000_000_000)
            #expect(b.samples[0].index - a.samples[2].index > 390)
        }
    }
}
