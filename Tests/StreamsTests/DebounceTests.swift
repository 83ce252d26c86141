import TelemetryTesting
import TestSupport
import Testing

@testable import Streams

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct DebounceTests {
    let lifecycle = TimeLifecycle { input, clock in input.debounce(for: .seconds(3), clock: clock) }

    @Test func emitsTheLatestValueOnceTheUpstreamIsQuiet() async {
        let result = await Marble.validate("a-b----c--", expected: "-----b----c") { input, clock in
            input.debounce(for: .seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func finishWhilePendingEmitsThePendingValueAtTheFinishInstant() async {
        let result = await Marble.validate("a-b|", expected: "---[b|]") { input, clock in
            input.debounce(for: .seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func failureWhilePendingDropsTheValueAndThrowsAtOnce() async {
        let result = await Marble.validate("a-b^", expected: "---^") { input, clock in
            input.debounce(for: .seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func upstreamFailurePassesThroughUnchanged() async {
        let outputs = await Marble.run(
            inputs: [.value(1, at: 0), .failure(TestError.other(7), at: 5)]) { input, clock in
                input.debounce(for: .seconds(2), clock: clock)
            }
        #expect(outputs.mismatch(expected: [.value(1, at: 2), .failure(.other(7), at: 5)]) == nil)
    }

    @Test func emptyUpstreamFinishesAtOnce() async {
        let result = await Marble.validate("--|", expected: "--|") { input, clock in
            input.debounce(for: .seconds(3), clock: clock)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func anInputAtThePendingDeadlineIsProcessedBeforeTheTimer() {
        typealias Instant = ManualClock.Instant
        var machine = DebounceStateMachine<String, Never, Instant>(interval: .seconds(3))
        _ = machine.start(at: .zero)
        _ = machine.receive("a", at: .zero)
        // "b" arrives at "a"'s deadline, before the timer for that deadline is handled.
        let onInput = machine.receive("b", at: Instant(offset: .seconds(3)))
        guard case .arm(let deadline) = onInput.timer else {
            Issue.record("the input re-arms the timer")
            return
        }
        #expect(deadline == Instant(offset: .seconds(6)))
        let stale = machine.timerFired(at: Instant(offset: .seconds(3)))
        guard case .none = stale.outputs else {
            Issue.record("\"a\" must not be emitted after \"b\" arrived at its deadline")
            return
        }
        guard case .one("b") = machine.timerFired(at: deadline).outputs else {
            Issue.record("\"b\" is emitted at its own deadline")
            return
        }
    }

    @Test func anErrorArrivingWhileTheConsumerIsBusyIsThrownOnTheNextCall() async throws {
        let subject = PassthroughSubject<Int, TestError>()
        let clock = ManualClock()
        var iterator = subject.subscribe().debounce(for: .seconds(1), clock: clock).makeAsyncIterator()
        subject.send(1)
        let advancer = Task {
            await clock.waitForSleepers(atLeast: 1)
            await clock.advance(by: .seconds(1))
        }
        #expect(try await iterator.next() == 1)
        await advancer.value
        // The consumer is not waiting now: a value becomes pending, then the
        // upstream fails.
        subject.send(2)
        await subject.waitForSuspendedConsumers(atLeast: 1)
        subject.fail(.upstream)
        await #expect(throws: TestError.upstream) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
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
