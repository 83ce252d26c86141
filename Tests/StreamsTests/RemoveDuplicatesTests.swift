import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct RemoveDuplicatesTests {
    let lifecycle = MarbleLifecycle(onSubject: { $0.removeDuplicates() }, onProbe: { $0.removeDuplicates() })

    @Test func dropsConsecutiveDuplicatesOnly() async {
        let result = await Marble.validate("aab-ba|", expected: "a-b--a|") { input, _ in
            input.removeDuplicates()
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func byComparesWithTheLastElementPassedOn() async {
        // 1 passes; 2 is within 1 of 1; 3 is not within 1 of 1 (the last passed on).
        let values = ProbePublisher<Never>([1, 2, 3, 4, 6]).removeDuplicates { abs($0 - $1) <= 1 }
        #expect(await collect(values) == [1, 3, 6])
    }

    @Test func emptyUpstreamEmitsNothing() async {
        #expect(await collect(ProbePublisher<Never>([]).removeDuplicates()) == [])
    }

    @Test func upstreamFailurePassesThroughUnchanged() async {
        let result = await Marble.validate("aa^", expected: "a-^") { input, _ in input.removeDuplicates() }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func aThrowingPredicateEndsTheStreamAndReleasesUpstream() async throws {
        let probe = Probe()
        var iterator = ProbePublisher<TestError>([1, 2], probe: probe)
            .removeDuplicates { (_: Int, _: Int) throws(TestError) -> Bool in throw .transform }
            .makeAsyncIterator()
        #expect(try await iterator.next() == 1, "the first element is never compared")
        await #expect(throws: TestError.transform) { try await iterator.next() }
        #expect(probe.iteratorsReleased == 1)
        #expect(try await iterator.next() == nil)
    }

    @Test func cancellingTheConsumerEndsWithNil() async { await lifecycle.cancellingTheConsumerEndsWithNil() }
    @Test func startingFromAnAlreadyCancelledTaskReturnsNil() async { await lifecycle.alreadyCancelledTaskReturnsNil() }
    @Test func droppingTheIteratorEarlyReleasesUpstream() async throws {
        try await lifecycle.droppingTheIteratorEarlyReleasesUpstream()
    }
    @Test func callsAfterTheEndReturnNil() async throws { try await lifecycle.callsAfterTheEndReturnNil() }
}
