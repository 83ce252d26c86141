import DeviceClocks
import Devices
import Testing

@Suite struct RateDejittererTests {
    static let start: Int64 = 1_700_000_000_000_000_000

    static func channel(
        seed: UInt64 = 2, seconds: Double, interval: Double = 0.030, drift: Double = 0,
        connectedTime: ClosedRange<Double>? = nil, sampleRate: Double = 50
    ) -> [DeliveredNotification] {
        var link = ConnectionEventDelivery(
            seed: seed,
            configuration: .init(
                sampleRate: sampleRate, clock: DeviceClock(tickRate: 1000, tickBits: 32, driftPPM: drift),
                connectionInterval: interval, retransmissionRate: 0.01, connectedTime: connectedTime,
                disconnectedTime: 5...5))
        return link.notifications(forSeconds: seconds)
    }

    @Test(arguments: [200.0, -200.0])
    func rateErrorIsRecovered(drift: Double) throws {
        let fed = try Fed.dejittered(Self.channel(seconds: 300, drift: drift), rate: 50)
        let model = try #require(fed.models.last)
        #expect(abs(model.driftPPM - drift) < 1)
        #expect(model.epoch == 0)
        // After 120 s: within 1 ms around the constant delay.
        #expect(fed.p99AroundMedian(from: 6000) < 1_000_000)
    }

    @Test func samplesDeliveredAtOneInstantAreSpacedAndNeverAfterIt() throws {
        // 50 Hz; every 100 ms the last five samples arrive 2 ms after the newest, as five calls or as one.
        for separately in [true, false] {
            var dejitterer = try RateDejitterer(configuration: .init(nominalRate: 50))
            var times: [Int64] = []
            var truth: [Int64] = []
            var receive: [Int64] = []
            for event in 0..<100 {
                let batch = (0..<5).map { Self.start + Int64(event * 5 + $0) * 20_000_000 }
                let at = batch[4] + 2_000_000
                if separately {
                    for _ in batch { times += try dejitterer.sampleTimes(count: 1, receivedAt: at) }
                } else {
                    times += try dejitterer.sampleTimes(count: 5, receivedAt: at)
                }
                truth += batch
                receive += Array(repeating: at, count: 5)
            }
            #expect(zip(times, receive).allSatisfy { $0 <= $1 })
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
            // Once the fit spans a few buckets (from the fifth second on), the line lies on the newest samples:
            // truth + 2 ms; a delivery's newest sample keeps the 1 µs guard before its receive time. (Before,
            // a bucket's first point, not yet its lowest, can tilt the line up to the drift bound.)
            let expected = truth.indices.map { truth[$0] + 2_000_000 - (!separately || $0 % 5 == 4 ? 1000 : 0) }
            #expect(Array(times[250...]) == Array(expected[250...]))
            #expect(dejitterer.model.driftPPM == 0)
        }
    }

    @Test func aFasterRateStartsANewRun() throws {
        // 50 Hz for 20 s, then 100 Hz; each sample received 3 ms after it.
        var dejitterer = try RateDejitterer(configuration: .init(nominalRate: 50))
        var truth = Self.start
        var changedAt: Int?
        for index in 0..<2000 {
            truth += index < 1000 ? 20_000_000 : 10_000_000
            let times = try dejitterer.sampleTimes(count: 1, receivedAt: truth + 3_000_000)
            if changedAt == nil, dejitterer.model.epoch == 1 { changedAt = index }
            if index < 1000 || index > 1100 { #expect(times == [truth + 3_000_000 - 1000]) }
        }
        let at = try #require(changedAt)
        #expect((1000...1010).contains(at))
        // The nominal rate is still 50 Hz: the run keeps breaking (each new one anchored on its newest
        // sample, so the times stay right) until `restart(nominalRate:)` says 100 Hz.
        #expect(dejitterer.model.epoch > 1)
    }

    @Test func aSlowerRateOrLostSamplesStartANewRun() throws {
        // 50 Hz for 20 s, then 25 Hz: the samples fall behind the line by 20 ms more each, until the
        // largest delay (500 ms) is passed at the 26th; then again 25 samples later.
        var dejitterer = try RateDejitterer(configuration: .init(nominalRate: 50))
        var truth = Self.start
        var epochs: [Int] = []
        for index in 0..<1100 {
            truth += index < 1000 ? 20_000_000 : 40_000_000
            _ = try dejitterer.sampleTimes(count: 1, receivedAt: truth + 3_000_000)
            epochs.append(dejitterer.model.epoch)
        }
        #expect(epochs.firstIndex(of: 1) == 1025)
        #expect(epochs.firstIndex(of: 2) == 1051)
        #expect(epochs[..<1025].allSatisfy { $0 == 0 })
    }

    @Test func restartTakesTheNewRate() throws {
        var dejitterer = try RateDejitterer(configuration: .init(nominalRate: 50))
        var truth = Self.start
        for _ in 0..<100 {
            truth += 20_000_000
            _ = try dejitterer.sampleTimes(count: 1, receivedAt: truth + 3_000_000)
        }
        try dejitterer.restart(nominalRate: 10)
        #expect(dejitterer.nominalRate == 10)
        for _ in 0..<100 {
            truth += 100_000_000
            #expect(try dejitterer.sampleTimes(count: 1, receivedAt: truth + 3_000_000) == [truth + 3_000_000 - 1000])
        }
        #expect(dejitterer.model.epoch == 1)
        #expect(throws: DeviceClockError.invalidConfiguration("nominalRate must be positive and at most 1e9")) {
            try dejitterer.restart(nominalRate: 0)
        }
    }

    @Test func gapsStartANewRun() throws {
        let notifications = Self.channel(seconds: 120, connectedTime: 20...20)
        let reconnects = notifications.filter(\.afterReconnect).count
        #expect(reconnects == 4)
        let fed = try Fed.dejittered(notifications, rate: 50)
        #expect(fed.models.last?.epoch == reconnects)
        #expect(zip(fed.estimate, fed.receive).allSatisfy { $0 <= $1 })
        #expect(zip(fed.estimate, fed.estimate.dropFirst()).allSatisfy { $0 < $1 })
    }

    /// A slow channel (1 Hz, 0.2 Hz) pauses a period between samples: that is its run, not a gap
    /// (each delivery began a new run when any pause over 500 ms did). With so few points the line
    /// needs minutes to settle: over 10 min (1 Hz) or 30 min (0.2 Hz) it beats receive time, and
    /// in the second half by at least ten times.
    @Test func aSlowChannelKeepsOneRun() throws {
        for (rate, seconds) in [(1.0, 600.0), (0.2, 1800.0)] {
            let notifications = Self.channel(seed: 3, seconds: seconds, interval: 0.030, sampleRate: rate)
            #expect(notifications.count >= Int(0.9 * seconds * rate))
            let fed = try Fed.dejittered(notifications, rate: rate)
            #expect(fed.models.last?.epoch == 0, "\(rate) Hz")
            #expect(zip(fed.estimate, fed.receive).allSatisfy { $0 <= $1 })
            let receive = Fed(truth: fed.truth, receive: fed.receive, estimate: fed.receive)
            #expect(fed.p99AroundMedian() < receive.p99AroundMedian(), "\(rate) Hz")
            let half = fed.truth.count / 2
            let late = Fed(
                truth: Array(fed.truth.suffix(half)), receive: Array(fed.receive.suffix(half)),
                estimate: Array(fed.estimate.suffix(half)))
            let lateReceive = Fed(truth: late.truth, receive: late.receive, estimate: late.receive)
            #expect(late.p99AroundMedian() * 10 < lateReceive.p99AroundMedian(), "\(rate) Hz")
        }
    }

    @Test func deterministicAndBetterThanReceiveTime() throws {
        for interval in [0.0075, 0.030, 0.100] {
            let notifications = Self.channel(seed: 5, seconds: 60, interval: interval, drift: -120)
            let fed = try Fed.dejittered(notifications, rate: 50)
            let again = try Fed.dejittered(notifications, rate: 50)
            #expect(fed.estimate == again.estimate)
            #expect(fed.models == again.models)
            #expect(zip(fed.estimate, fed.receive).allSatisfy { $0 <= $1 })
            #expect(zip(fed.estimate, fed.estimate.dropFirst()).allSatisfy { $0 < $1 })
            let receive = Fed(truth: fed.truth, receive: fed.receive, estimate: fed.receive)
            #expect(fed.p99AroundMedian() < receive.p99AroundMedian())
        }
    }

    @Test func theBufferVariantReplacesItsContentsWithTheSameTimes() throws {
        // Gaps start new runs (new epochs); deliveries carry 1 or more samples.
        let notifications = Self.channel(seed: 5, seconds: 90, connectedTime: 20...20)
        var allocating = try RateDejitterer(configuration: .init(nominalRate: 50))
        var reusing = allocating
        var (same, epochs, buffer) = try Fed.comparingBuffers(
            notifications, allocating: &allocating, reusing: &reusing,
            times: { try $0.sampleTimes(count: $1.samples.count, receivedAt: $1.receivedAt) },
            into: { try $0.sampleTimes(count: $1.samples.count, receivedAt: $1.receivedAt, into: &$2) },
            epochs: { ($0.epoch, $0.model.epoch) })
        #expect(same)
        #expect(epochs.count >= 2)
        #expect(reusing == allocating)
        let kept = buffer
        #expect(throws: DeviceClockError.noSamples) {
            try reusing.sampleTimes(count: 0, receivedAt: notifications.last!.receivedAt, into: &buffer)
        }
        #expect(buffer == kept)
    }

    @Test func badInputIsRefused() throws {
        #expect(throws: DeviceClockError.invalidConfiguration("nominalRate must be positive and at most 1e9")) {
            try RateDejitterer(configuration: .init(nominalRate: .nan))
        }
        var dejitterer = try RateDejitterer(configuration: .init(nominalRate: 50))
        #expect(throws: DeviceClockError.noSamples) { try dejitterer.sampleTimes(count: 0, receivedAt: Self.start) }
    }
}
