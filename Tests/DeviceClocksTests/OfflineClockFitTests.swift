import DeviceClocks
import Testing

/// The whole-recording fit: each epoch's line under all its points, with
/// the online estimators' epochs. Inputs are built so the lowest delays
/// lie exactly on the truth's line: every time is then the truth plus that
/// delay (to the nanosecond the floating-point line rounds to), but at
/// least the 1 µs guard before its receive time.
@Suite struct OfflineClockFitTests {
    static let start: Int64 = 1_700_000_000_000_000_000
    static let guardNanoseconds: Int64 = 1000

    /// The first sample whose time is more than the rounding of the fitted line (1 ns) from
    /// `expected`, or a count that differs; `nil` when they match.
    static func mismatch(_ times: [Int64], _ expected: [Int64]) -> String? {
        guard times.count == expected.count else { return "\(times.count) times for \(expected.count) samples" }
        guard let index = times.indices.first(where: { abs(times[$0] - expected[$0]) > 1 }) else { return nil }
        return "sample \(index): \(times[index]), expected \(expected[index])"
    }

    /// Device ticks at 1 kHz, one sample every `step` ms; the host's clock
    /// runs `drift` ppm faster. Sample `i` is measured at `truth[i]` and
    /// received `delay(i)` later (in order: a delay never falls by a step).
    struct Ticked {
        var ticks: [UInt64] = []
        var truth: [Int64] = []
        var receive: [Int64] = []
    }

    static func ticked(
        count: Int, step: Int64 = 10, drift: Int64 = 0, initialTicks: UInt64 = 5_000, bits: Int = 32,
        delay: (Int) -> Int64
    ) -> Ticked {
        var result = Ticked()
        for index in 0..<count {
            let elapsed = Int64(index) * step
            result.ticks.append((initialTicks + UInt64(elapsed)) % (UInt64(1) << UInt64(bits)))
            // 1 ms of device time lasts 1 ms × (1 + drift / 1e6) on the host.
            let truth = start + elapsed * (1_000_000 + drift)
            result.truth.append(truth)
            result.receive.append(truth + delay(index))
        }
        return result
    }

    /// The truth plus the lowest delay, but at least the guard before the sample's receive time (one
    /// sample per delivery).
    static func expected(_ input: Ticked, floor: Int64) -> [Int64] {
        input.truth.indices.map { min(input.truth[$0] + floor, input.receive[$0] - guardNanoseconds) }
    }

    static func fit(
        _ input: Ticked, configuration: DeviceClockEstimator.Configuration = .jacquardIMU
    ) throws
        -> OfflineClockFit
    {
        var fit = try OfflineClockFit(configuration: configuration)
        for index in input.ticks.indices {
            try fit.add(ticks: [input.ticks[index]], receivedAt: input.receive[index])
        }
        return fit
    }

    @Test(arguments: [200 as Int64, -200])
    func driftUnderADriftingDelayIsExactFromTheFirstSample(drift: Int64) throws {
        // 20 minutes; the delay climbs from 5 to 14 ms over each 150 s and drops back (the beat between
        // notification period and connection interval): online, that slope reads as drift until the fit
        // has seen it wrap.
        let input = Self.ticked(count: 120_000, drift: drift) { index in
            5_000_000 + Int64(index % 15_000) * 9_000_000 / 15_000
        }
        let fit = try Self.fit(input)
        let models = fit.models
        #expect(models.count == 1)
        #expect(abs(try #require(models.first).driftPPM - Double(drift)) < 1e-6)
        let times = fit.sampleTimes()
        #expect(Self.mismatch(times, Self.expected(input, floor: 5_000_000)) == nil)
        #expect(zip(times, input.receive).allSatisfy { $0 <= $1 })
        // The online estimator, on the same input, is misled during the first beat periods.
        var online = try DeviceClockEstimator(configuration: .jacquardIMU)
        var worst: Int64 = 0
        for index in input.ticks.indices {
            let time = try online.sampleTimes(ticks: [input.ticks[index]], receivedAt: input.receive[index])[0]
            worst = max(worst, abs(time - (input.truth[index] + 5_000_000)))
        }
        #expect(worst > 1_000_000)
    }

    @Test func wrapAroundKeepsOneEpoch() throws {
        // A 16-bit counter at 1 kHz wraps every 65.536 s: three wraps in 200 s.
        var configuration = DeviceClockEstimator.Configuration.jacquardIMU
        configuration.tickBits = 16
        let input = Self.ticked(count: 20_000, drift: 100, initialTicks: 60_000, bits: 16) { index in
            3_000_000 + Int64(index % 7) * 1_000_000
        }
        #expect(input.ticks.filter { $0 < 10 }.count == 3)
        let fit = try Self.fit(input, configuration: configuration)
        #expect(fit.models.count == 1)
        #expect(abs(try #require(fit.models.first).driftPPM - 100) < 1e-6)
        #expect(Self.mismatch(fit.sampleTimes(), Self.expected(input, floor: 3_000_000)) == nil)
    }

    @Test func aResetStartsASecondEpochFittedOnItsOwn() throws {
        // 60 s at +150 ppm; at sample 3000 the device restarts its counter from 0.
        var input = Self.ticked(count: 6000, drift: 150) { index in 4_000_000 + Int64(index % 5) * 2_000_000 }
        for index in 3000..<6000 { input.ticks[index] = UInt64(index - 3000) * 10 }
        let fit = try Self.fit(input)
        let models = fit.models
        #expect(models.map(\.epoch) == [0, 1])
        #expect(models.allSatisfy { abs($0.driftPPM - 150) < 1e-6 })
        // The second epoch's device time 0 is the reset's first sample, at its truth plus the floor.
        #expect(abs(models[1].offsetNanoseconds - (input.truth[3000] + 4_000_000)) <= 1)
        #expect(Self.mismatch(fit.sampleTimes(), Self.expected(input, floor: 4_000_000)) == nil)
    }

    @Test func anImpossiblyEarlyReceiveTimeIsLeftOut() throws {
        // A sample every 100 ms, 80 ms delay throughout, but sample 250 (at 25 s, the line settled) arrives
        // only 5 ms after it.
        let input = Self.ticked(count: 400, step: 100, drift: -50) { index in
            index == 250 ? 5_000_000 : 80_000_000
        }
        let fit = try Self.fit(input)
        #expect(fit.models.count == 1)
        #expect(abs(try #require(fit.models.first).driftPPM + 50) < 1e-6)
        var expected = Self.expected(input, floor: 80_000_000)
        // The outlier is placed on the line, but never after its receive time.
        expected[250] = input.receive[250] - Self.guardNanoseconds
        #expect(Self.mismatch(fit.sampleTimes(), expected) == nil)
    }

    @Test func aRateChangeStartsANewRun() throws {
        // 50 Hz for 30 s, then (as the device reports) 100 Hz for 30 s; each sample received 3 to 9 ms after
        // it; the host runs 80 ppm fast against the nominal rate in both runs.
        var fit = try OfflineClockFit(configuration: RateDejitterer.Configuration(nominalRate: 50))
        var truth: [Int64] = []
        var receive: [Int64] = []
        var at = Self.start
        for index in 0..<4500 {
            if index == 1500 { try fit.restart(nominalRate: 100) }
            at += index < 1500 ? 20_001_600 : 10_000_800
            let delay = 3_000_000 + Int64(index % 4) * 2_000_000
            truth.append(at)
            receive.append(at + delay)
            try fit.add(count: 1, receivedAt: at + delay)
        }
        let models = fit.models
        #expect(models.map(\.epoch) == [0, 1])
        #expect(models.allSatisfy { abs($0.driftPPM - 80) < 1e-6 })
        let expected = truth.indices.map { truth[$0] + 3_000_000 - ($0 % 4 == 0 ? Self.guardNanoseconds : 0) }
        #expect(Self.mismatch(fit.sampleTimes(), expected) == nil)
    }

    @Test func samplesOfOneDeliveryAreSpacedAndNeverAfterIt() throws {
        // 50 Hz; every 100 ms the last five samples arrive 2 ms after the newest.
        var fit = try OfflineClockFit(configuration: RateDejitterer.Configuration(nominalRate: 50))
        var truth: [Int64] = []
        for event in 0..<600 {
            let batch = (0..<5).map { Self.start + Int64(event * 5 + $0) * 20_000_000 }
            try fit.add(count: 5, receivedAt: batch[4] + 2_000_000)
            truth += batch
        }
        #expect(fit.sampleCount == 3000)
        // Each delivery's newest sample would land on its receive time: the delivery moves back by the guard.
        let expected = truth.map { $0 + 2_000_000 - Self.guardNanoseconds }
        #expect(Self.mismatch(fit.sampleTimes(), expected) == nil)
        #expect(fit.models.first?.driftPPM == 0)
    }

    @Test func theWrongKindOfInputIsRefused() throws {
        var ticks = try OfflineClockFit(configuration: .jacquardIMU)
        #expect(throws: DeviceClockError.wrongClockKind("a sample count added to a tick fit")) {
            try ticks.add(count: 1, receivedAt: Self.start)
        }
        var rate = try OfflineClockFit(configuration: RateDejitterer.Configuration(nominalRate: 50))
        #expect(throws: DeviceClockError.wrongClockKind("ticks added to a nominal-rate fit")) {
            try rate.add(ticks: [1], receivedAt: Self.start)
        }
        #expect(throws: DeviceClockError.noSamples) { try rate.add(count: 0, receivedAt: Self.start) }
        #expect(rate.sampleCount == 0)
        #expect(rate.sampleTimes().isEmpty)
    }
}
