import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct RetryTests {
    let lifecycle = MarbleLifecycle(onSubject: { $0.retry(2) }, onProbe: { $0.retry(2) })

    @Test func reiteratesTheBaseAfterAFailureUpToCountTimes() async {
        let probe = Probe()
        let result = await collect(ProbePublisher<TestError>([1, 2], ending: .fail(.upstream), probe: probe).retry(2))
        #expect(throws: TestError.upstream) { try result.get() }
        #expect(probe.iteratorsMade == 3, "the first attempt and two retries")
        #expect(probe.iteratorsReleased == 3)
    }

    @Test func elementsOfEveryAttemptArePassedOn() async throws {
        var iterator = ProbePublisher<TestError>([1], ending: .fail(.upstream)).retry(1).makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        #expect(try await iterator.next() == 1)
        await #expect(throws: TestError.upstream) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test func retryZeroPassesTheFirstFailureThrough() async {
        let probe = Probe()
        let result = await collect(ProbePublisher<TestError>([], ending: .fail(.upstream), probe: probe).retry(0))
        #expect(throws: TestError.upstream) { try result.get() }
        #expect(probe.iteratorsMade == 1)
    }

    @Test func aFinishEndsTheStreamWithoutRetrying() async {
        let probe = Probe()
        #expect((try? await collect(ProbePublisher<TestError>([1], probe: probe).retry(3)).get()) == [1])
        #expect(probe.iteratorsMade == 1)
    }

    @Test func aFailedSubjectFailsEveryRetryAtOnce() async {
        // A subject is not re-iterable in the useful sense: a new consumer of a
        // failed subject receives the failure at once.
        let result = await Marble.validate("a-^", expected: "a-^") { input, _ in input.retry(3) }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func cancellingTheConsumerEndsWithNil() async { await lifecycle.cancellingTheConsumerEndsWithNil() }
    @Test func startingFromAnAlreadyCancelledTaskReturnsNil() async { await lifecycle.alreadyCancelledTaskReturnsNil() }
    @Test func droppingTheIteratorEarlyReleasesUpstream() async throws {
        try await lifecycle.droppingTheIteratorEarlyReleasesUpstream()
    }
    @Test func callsAfterTheEndReturnNil() async throws { try await lifecycle.callsAfterTheEndReturnNil() }
}
