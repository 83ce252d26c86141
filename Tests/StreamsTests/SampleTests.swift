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
