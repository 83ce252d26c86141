import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct DelayTests {
    let lifecycle = TimeLifecycle { input, clock in input.delay(.seconds(2), clock: clock) }

    @Test func emitsEachElementTheIntervalAfterItArrived() async {
        let result = await Marble.validate("ab--c", expected: "--ab--c") { input, clock in
            input.delay(.seconds(2), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func theFinishFollowsTheLastDelayedElement() async {
        let result = await Marble.validate("a-b|", expected: "--a-[b|]") { input, clock in
            input.delay(.seconds(2), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func aFinishWithNothingWaitingIsImmediate() async {
        let result = await Marble.validate("a---|", expected: "--a-|") { input, clock in
            input.delay(.seconds(2), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func failureIsThrownAtOnceAndDropsWaitingElements() async {
        let result = await Marble.validate("a--b^", expected: "--a-^") { input, clock in
            input.delay(.seconds(2), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func emptyUpstreamFinishesAtOnce() async {
        let result = await Marble.validate("|", expected: "|") { input, clock in
            input.delay(.seconds(2), clock: clock)
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
        await lifecycle.droppingTheIteratorEarlyStopsAllWork(advance: .seconds(2))
    }

    @Test func callsAfterTheEndReturnNil() async throws {
        try await lifecycle.callsAfterTheEndReturnNil()
    }
}
