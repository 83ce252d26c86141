import TelemetryTesting
import TestSupport
import Testing

@testable import Streams

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct SampleTests {
    let lifecycle = TimeLifecycle { input, clock in input.sample(every: .seconds(3), clock: clock) }

    @Test func emitsTheLatestValueAtEachTickIfNewSinceTheLastTick() async {
        // Ticks at 3, 6, 9, 12: nothing new before 9, so nothing at 9.
        let result = await Marble.validate("-ab-c-----d", expected: "---b--c-----d") { input, clock in
            input.sample(every: .seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func ticksFollowAFixedGridFromTheStartOfTheIteration() async {
        // "a" at 4 waits for the tick at 6, not for 4 + 3.
        let result = await Marble.validate("----a", expected: "------a") { input, clock in
            input.sample(every: .seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func anElementAtATickInstantBelongsToThatTick() {
        typealias Instant = ManualClock.Instant
        var machine = SampleStateMachine<String, Never, Instant>(interval: .seconds(3))
        _ = machine.start(at: .zero)
        let action = machine.receive("a", at: Instant(offset: .seconds(3)))
        guard case .arm(let tick) = action.timer else {
            Issue.record("a new element arms the timer")
            return
        }
        #expect(tick == Instant(offset: .seconds(3)))
    }

    /// The grid is exact however far behind an element arrives: 60 Hz
    /// ticks (not a whole number of nanoseconds per second) after a gap
    /// of hours, where the floating-point quotient is off.
    @Test func theTickAfterALongGapIsExact() {
        typealias Instant = ManualClock.Instant
        let interval = Duration.nanoseconds(16_666_667)
        for gap in [Duration.seconds(3 * 3600) + .nanoseconds(1), .seconds(86_400), interval * 1_000_003] {
            var machine = SampleStateMachine<String, Never, Instant>(interval: interval)
            _ = machine.start(at: .zero)
            guard case .arm(let tick) = machine.receive("a", at: Instant(offset: gap)).timer else {
                Issue.record("a new element arms the timer")
                return
            }
            #expect(tick.offset >= gap && tick.offset - interval < gap, "\(gap): \(tick)")
            #expect(tick.offset.attoseconds % interval.attoseconds == 0, "on the grid")
        }
    }

    /// With no positive interval every instant is a tick: each element is
    /// emitted when it arrives; never a trap or a hang.
    @Test(arguments: [Duration.zero, .seconds(-2)])
    func aZeroOrNegativeIntervalEmitsEachElementAsItArrives(interval: Duration) async {
        let scheduler = TestScheduler()
        let run = await scheduler.run(scheduler.hot("ab-c--d|").sample(every: interval, clock: scheduler.clock))
        #expect(run.mismatch(expected: "ab-c--d|") == nil, "\(run.diagram) \(run.issues)")
    }

    @Test func finishEmitsAnUnsampledValueAtTheFinishInstant() async {
        let result = await Marble.validate("-a|", expected: "--[a|]") { input, clock in
            input.sample(every: .seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func failureDropsAnUnsampledValue() async {
        let result = await Marble.validate("-a^", expected: "--^") { input, clock in
            input.sample(every: .seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func emptyUpstreamFinishesAtOnce() async {
        let result = await Marble.validate("|", expected: "|") { input, clock in
            input.sample(every: .seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func cancellingTheConsumerStopsAllWork() async {
        await lifecycle.cancellingTheConsumerStopsAllWork()
    }

    @Test func startingFromAnAlreadyCancelledTaskReturnsNil() async {
        await lifecycle.alreadyCancelledTaskReturnsNil()
    }

    @Test func droppingTheIteratorEarlyStopsAllWork() async {
        await lifecycle.droppingTheIteratorEarlyStopsAllWork(advance: .seconds(3))
    }

    @Test func callsAfterTheEndReturnNil() async throws {
        try await lifecycle.callsAfterTheEndReturnNil()
    }
}
