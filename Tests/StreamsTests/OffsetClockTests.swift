import TelemetryTesting
import TestSupport
import Testing

@testable import Streams

/// The clock debounce and throttle drive their machines with when the
/// clock measures in `Duration`: its instants are the base clock's, exactly.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct OffsetClockTests {
    @Test func instantsAreTheTimeSinceTheOriginOfTheBaseClock() async {
        let base = ManualClock(now: ManualClock.Instant(offset: .seconds(10)))
        let clock = OffsetClock(base)!
        #expect(clock.now.offset == .zero)
        await base.advance(to: ManualClock.Instant(offset: .milliseconds(12_500)))
        #expect(clock.now.offset == .milliseconds(2_500))
        #expect(clock.baseInstant(clock.now) == base.now)
        #expect(
            clock.baseInstant(clock.now.advanced(by: .seconds(1))) == ManualClock.Instant(offset: .milliseconds(13_500))
        )
        #expect(clock.minimumResolution == base.minimumResolution)
    }

    @Test func sleepsOnTheBaseClockUntilTheSameInstant() async throws {
        let base = ManualClock(now: ManualClock.Instant(offset: .seconds(5)))
        let clock = OffsetClock(base)!
        let sleeper = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(3)), tolerance: nil) }
        await base.waitForSleepers(atLeast: 1)
        // Asleep on the base clock until 3 s after the origin (5 s).
        #expect(base.nextDeadline == ManualClock.Instant(offset: .seconds(8)))
        await base.advance(to: ManualClock.Instant(offset: .seconds(8)))
        try await sleeper.value
        #expect(base.sleeperCount == 0)
    }

    @Test func aContinuousClockInstantMapsBackToTheBaseClocksTimeWhenItWasRead() {
        let clock = OffsetClock(ContinuousClock())!
        let before = ContinuousClock.now
        let read = clock.now
        let after = ContinuousClock.now
        // Read between `before` and `after` on the base clock, so it maps back between them.
        #expect(before <= clock.baseInstant(read) && clock.baseInstant(read) <= after)
        #expect(clock.baseInstant(read.advanced(by: .seconds(1))) == clock.baseInstant(read).advanced(by: .seconds(1)))
    }

    @Test func onLinuxAContinuousClockIsReadDirectlyAndAgreesWithTheBaseClock() {
        let clock = OffsetClock(ContinuousClock())!
        #if os(Linux)
        #expect(clock.bootOrigin != nil, "CLOCK_BOOTTIME read directly")
        #endif
        var previous = clock.now
        for _ in 0..<10_000 {
            let before = ContinuousClock.now
            let read = clock.now
            let after = ContinuousClock.now
            #expect(before <= clock.baseInstant(read) && clock.baseInstant(read) <= after)
            #expect(previous <= read, "monotonic")
            previous = read
        }
    }
}
