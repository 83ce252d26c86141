import TelemetryTesting
import TestSupport
import Testing

@testable import Streams

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct ThrottleTests {
    let lifecycle = TimeLifecycle { input, clock in input.throttle(for: .seconds(3), clock: clock, latest: true) }

    @Test func firstElementAtOnceThenTheLatestWhenTheIntervalEnds() async {
        let result = await Marble.validate("abc-----d", expected: "a--c----d") { input, clock in
            input.throttle(for: .seconds(3), clock: clock, latest: true)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func latestFalseEmitsTheFirstHeldElement() async {
        let result = await Marble.validate("abc-----d", expected: "a--b----d") { input, clock in
            input.throttle(for: .seconds(3), clock: clock, latest: false)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func theHeldElementIsEmittedByTheTimerNotByTheNextArrival() async {
        // Nothing arrives after "b": it still comes out when the interval ends.
        let result = await Marble.validate("ab", expected: "a--b") { input, clock in
            input.throttle(for: .seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func intervalsAreMeasuredFromTheLastEmission() async {
        // "c" is emitted at 3 (end of a's interval) and opens an interval to
        // 6, where "d" comes out and opens one to 9.
        let result = await Marble.validate("abc-d--e", expected: "a--c--d--e") { input, clock in
            input.throttle(for: .seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func finishWithAHeldElementEmitsItAtTheFinishInstant() async {
        let result = await Marble.validate("ab|", expected: "a-[b|]") { input, clock in
            input.throttle(for: .seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func failureDropsTheHeldElement() async {
        let result = await Marble.validate("ab^", expected: "a-^") { input, clock in
            input.throttle(for: .seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func emptyUpstreamFinishesAtOnce() async {
        let result = await Marble.validate("-|", expected: "-|") { input, clock in
            input.throttle(for: .seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func upstreamFailurePassesThroughUnchanged() async {
        let outputs = await Marble.run(
            inputs: [.value(1, at: 0), .failure(TestError.other(3), at: 4)]) { input, clock in
                input.throttle(for: .seconds(2), clock: clock)
            }
        #expect(outputs.mismatch(expected: [.value(1, at: 0), .failure(.other(3), at: 4)]) == nil)
    }

    @Test func cancellingTheConsumerStopsAllWork() async {
        await lifecycle.cancellingTheConsumerStopsAllWork()
    }

    @Test func startingFromAnAlreadyCancelledTaskReturnsNil() async {
        await lifecycle.alreadyCancelledTaskReturnsNil()
    }

    @Test func droppingTheIteratorEarlyStopsAllWork() async {
        await lifecycle.droppingTheIteratorEarlyStopsAllWork(advance: nil)
    }

    @Test func callsAfterTheEndReturnNil() async throws {
        try await lifecycle.callsAfterTheEndReturnNil()
    }
}
