import TelemetryTesting
import TestSupport
import Testing

@testable import Streams

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct TimeoutTests {
    let lifecycle = TimeLifecycle { input, clock in input.timeout(.seconds(3), clock: clock) }

    @Test func failsWhenTheUpstreamStaysSilentForTheInterval() async {
        let result = await Marble.validate("a-b-----c|", expected: "a-b--^") { input, clock in
            input.timeout(.seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func passesElementsAndTheFinishThroughWhenInTime() async {
        let result = await Marble.validate("a-b-c|", expected: "a-b-c|") { input, clock in
            input.timeout(.seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func theTimeoutIsATypedFailureAndCancelsTheUpstream() async {
        let outputs = await Marble.run(
            inputs: [.value(1, at: 1)] as [MarbleEvent<Int, TestError>]
        ) { input, clock in
            input.timeout(.seconds(2), clock: clock)
        }
        #expect(outputs.mismatch(expected: [.value(1, at: 1), .failure(.timedOut(TimeoutError()), at: 3)]) == nil)
    }

    @Test func upstreamErrorsAreWrappedAsUpstream() async {
        let outputs = await Marble.run(
            inputs: [.value(1, at: 0), .failure(TestError.other(5), at: 1)]) { input, clock in
                input.timeout(.seconds(3), clock: clock)
            }
        #expect(outputs.mismatch(expected: [.value(1, at: 0), .failure(.upstream(.other(5)), at: 1)]) == nil)
    }

    @Test func anElementAtTheDeadlineIsInTime() {
        typealias Instant = ManualClock.Instant
        var machine = TimeoutStateMachine<Int, Never, Instant>(interval: .seconds(3))
        _ = machine.start(at: .zero)
        let onInput = machine.receive(1, at: Instant(offset: .seconds(3)))
        guard case .arm(let deadline) = onInput.timer, onInput.end == nil else {
            Issue.record("the element is passed on and re-arms the timer")
            return
        }
        #expect(deadline == Instant(offset: .seconds(6)))
    }

    @Test func emptyUpstreamFinishesAtOnce() async {
        let result = await Marble.validate("-|", expected: "-|") { input, clock in
            input.timeout(.seconds(3), clock: clock)
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
        await lifecycle.droppingTheIteratorEarlyStopsAllWork(advance: nil)
    }

    @Test func callsAfterTheEndReturnNil() async throws {
        try await lifecycle.callsAfterTheEndReturnNil()
    }
}
