import DeviceClocks
import Devices
import Testing

@Suite struct DeviceClockEstimatorTests {
    static let start: Int64 = 1_700_000_000_000_000_000

    /// A Jacquard-like IMU: 100 Hz, three samples per notification, 1% retransmissions.
    static func imu(
        seed: UInt64 = 1, seconds: Double, interval: Double = 0.0075, drift: Double = 0, bits: Int = 32,
        initialTicks: UInt64 = 123_456, resets: [Double] = [], connectedTime: ClosedRange<Double>? = nil
    ) -> [DeliveredNotification] {
        var link = ConnectionEventDelivery(
            seed: seed,
            configuration: .init(
                sampleRate: 100, samplesPerNotification: 3,
                clock: DeviceClock(
                    tickRate: 1000, tickBits: bits, driftPPM: drift, initialTicks: initialTicks, resets: resets),
                connectionInterval: interval, retransmissionRate: 0.01, connectedTime: connectedTime,
                disconnectedTime: 5...5))
        return link.notifications(forSeconds: seconds)
    }

    @Test func constantDelayGivesTheTruthShiftedByIt() throws {
        // Ticks every 10 ms, three per notification, each received 5 ms after its last sample.
        var clock = try DeviceClockEstimator(configuration: .jacquardIMU)
        for notification in 0..<200 {
            let ticks = (0..<3).map { UInt64(1000 + notification * 30 + $0 * 10) }
            let truth = ticks.map { Self.start + Int64($0) * 1_000_000 }
            let times = try clock.sampleTimes(ticks: ticks, receivedAt: truth[2] + 5_000_000)
            #expect(times == truth.map { $0 + 5_000_000 - 1000 })
        }
        #expect(clock.model.driftPPM == 0)
        #expect(clock.model.epoch == 0)
    }

    @Test(arguments: [200.0, -200.0])
    func driftIsRecovered(drift: Double) throws {
        let fed = try Fed.ticked(Self.imu(seconds: 300, drift: drift), configuration: .jacquardIMU)
        let model = try #require(fed.models.last)
        #expect(abs(model.driftPPM - drift) < 2)
        #expect(model.epoch == 0)
        // After the first 120 s (three beat cycles of the 7.5 ms interval): within 0.5 ms around the constant delay.
        #expect(fed.p99AroundMedian(from: 12_000) < 500_000)
    }

    @Test(arguments: [16, 32])
    func wrapAroundKeepsOneEpoch(bits: Int) throws {
        // 16 bits at 1 kHz wrap every 65.536 s; the 32-bit counter starts 5 s before its wrap.
        let initial: UInt64 = bits == 16 ? 60_000 : (1 << 32) - 5000
        var configuration = DeviceClockEstimator.Configuration.jacquardIMU
        configuration.tickBits = bits
        let notifications = Self.imu(seconds: 200, bits: bits, initialTicks: initial)
        #expect(notifications.contains { $0.samples.contains { $0.ticks < 1000 } })
        let fed = try Fed.ticked(notifications, configuration: configuration)
        #expect(fed.models.allSatisfy { $0.epoch == 0 })
        #expect(fed.p99AroundMedian(from: 1000) < 100_000)
        #expect(zip(fed.estimate, fed.estimate.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func resetStartsANewEpoch() throws {
        let notifications = Self.imu(seconds: 60, resets: [30])
        let fed = try Fed.ticked(notifications, configuration: .jacquardIMU)
        // The epoch changes at the notification holding the first sample measured after the reset.
        let firstAfter = try #require(notifications.firstIndex { $0.samples.contains { $0.ticks < 1000 } })
        #expect(fed.models[..<firstAfter].allSatisfy { $0.epoch == 0 })
        #expect(fed.models[firstAfter...].allSatisfy { $0.epoch == 1 })
        #expect(zip(fed.estimate, fed.estimate.dropFirst()).allSatisfy { $0 < $1 })
        #expect(zip(fed.estimate, fed.receive).allSatisfy { $0 <= $1 })
    }

    @Test func reconnectGapsAreBridgedByTheTicks() throws {
        let notifications = Self.imu(seconds: 120, connectedTime: 20...20)
        #expect(notifications.filter(\.afterReconnect).count == 4)
        let fed = try Fed.ticked(notifications, configuration: .jacquardIMU)
        #expect(fed.models.allSatisfy { $0.epoch == 0 })
        // The line goes on across the gaps. Each reconnection draws a new anchor, so the delay floor the
        // envelope rests on steps (by up to an interval), which a short fit reads as drift: after 30 s every
        // sample is still at or after its truth and at most one interval and the largest latency (10.5 ms)
        // later, where receive time is up to 30 ms later.
        #expect(fed.errors[3000...].allSatisfy { (0...10_500_000).contains($0) })
    }

    @Test func anImpossiblyEarlyReceiveTimeDoesNotDragTheLine() throws {
        // One sample per notification every 100 ms, received 80 ms after it; at 20 s one arrives only 5 ms after.
        var clock = try DeviceClockEstimator(configuration: .jacquardIMU)
        var before: ClockModel?
        for index in 0..<400 {
            let ticks = UInt64(index * 100)
            let truth = Self.start + Int64(ticks) * 1_000_000
            let delay: Int64 = index == 200 ? 5_000_000 : 80_000_000
            let times = try clock.sampleTimes(ticks: [ticks], receivedAt: truth + delay)
            if index == 199 { before = clock.model }
            if index == 200 {
                #expect(times == [truth + delay - 1000])
                #expect(clock.model == before)
            } else {
                #expect(times == [truth + 80_000_000 - 1000])
            }
        }
    }

    @Test func ticksThatRepeatGiveEqualTimes() throws {
        var clock = try DeviceClockEstimator(configuration: .jacquardIMU)
        let first = try clock.sampleTimes(ticks: [100, 110, 110], receivedAt: Self.start)
        #expect(first == [Self.start - 10_001_000, Self.start - 1000, Self.start - 1000])
        let second = try clock.sampleTimes(ticks: [120], receivedAt: Self.start + 10_000_000)
        #expect(second == [Self.start + 10_000_000 - 1000])
    }

    @Test func neverAfterReceiveStrictlyIncreasingAndDeterministic() throws {
        for interval in [0.0075, 0.030, 0.100] {
            let notifications = Self.imu(seed: 9, seconds: 90, interval: interval, drift: 150)
            let fed = try Fed.ticked(notifications, configuration: .jacquardIMU)
            let again = try Fed.ticked(notifications, configuration: .jacquardIMU)
            #expect(fed.estimate == again.estimate)
            #expect(fed.models == again.models)
            #expect(zip(fed.estimate, fed.receive).allSatisfy { $0 <= $1 })
            #expect(zip(fed.estimate, fed.estimate.dropFirst()).allSatisfy { $0 < $1 })
            // Better than receive time around the constant delay, warm-up included (the benchmark
            // measures how much better once the fit has seen the drift).
            let receive = Fed(truth: fed.truth, receive: fed.receive, estimate: fed.receive)
            #expect(fed.p99AroundMedian() < receive.p99AroundMedian())
        }
    }

    @Test func theBufferVariantReplacesItsContentsWithTheSameTimes() throws {
        // Resets and reconnects give epochs and jumps mid-notification; the
        // buffer starts longer than a delivery and is reused throughout.
        let notifications = Self.imu(seed: 4, seconds: 120, resets: [30.004, 70], connectedTime: 20...20)
        var allocating = try DeviceClockEstimator(configuration: .jacquardIMU)
        var reusing = allocating
        var (same, epochs, buffer) = try Fed.comparingBuffers(
            notifications, allocating: &allocating, reusing: &reusing,
            times: { try $0.sampleTimes(ticks: $1.samples.map(\.ticks), receivedAt: $1.receivedAt) },
            into: { try $0.sampleTimes(ticks: $1.samples.map(\.ticks), receivedAt: $1.receivedAt, into: &$2) },
            epochs: { ($0.epoch, $0.model.epoch) })
        #expect(same)
        #expect(epochs.count >= 3)
        #expect(reusing == allocating)
        // A refused notification leaves the buffer as it was.
        let kept = buffer
        #expect(throws: DeviceClockError.self) {
            try reusing.sampleTimes(ticks: [1 << 32], receivedAt: notifications.last!.receivedAt, into: &buffer)
        }
        #expect(buffer == kept)
    }

    @Test func badInputIsRefusedAndChangesNothing() throws {
        #expect(throws: DeviceClockError.invalidConfiguration("tickBits must be 1…64")) {
            try DeviceClockEstimator(configuration: .init(tickRate: 1000, tickBits: 0))
        }
        var clock = try DeviceClockEstimator(configuration: .init(tickRate: 1000, tickBits: 16))
        _ = try clock.sampleTimes(ticks: [5], receivedAt: Self.start)
        let before = clock
        #expect(throws: DeviceClockError.tickOutOfRange(ticks: 65_536, bits: 16)) {
            try clock.sampleTimes(ticks: [65_536], receivedAt: Self.start + 1)
        }
        #expect(throws: DeviceClockError.receiveTimeDecreased(previous: Self.start, received: Self.start - 1)) {
            try clock.sampleTimes(ticks: [6], receivedAt: Self.start - 1)
        }
        #expect(throws: DeviceClockError.noSamples) { try clock.sampleTimes(ticks: [], receivedAt: Self.start) }
        #expect(clock == before)
    }
}
