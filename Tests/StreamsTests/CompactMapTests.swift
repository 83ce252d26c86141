import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct CompactMapTests {
    let lifecycle = MarbleLifecycle(onSubject: { $0.compactMap { $0 } }, onProbe: { $0.compactMap { $0 } })

    @Test func passesOnTheNonNilResultsAtTheInstantOfTheirInput() async {
        let result = await Marble.validate("a1b-2|", expected: "-1--2|") { input, _ in
            input.compactMap { Int($0).map(String.init) }
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func emptyUpstreamFinishes() async {
        #expect(await collect(ProbePublisher<Never>([]).compactMap { $0 }) == [])
    }

    @Test func upstreamFailurePassesThroughUnchanged() async {
        let result = await Marble.validate("1a^", expected: "1-^") { input, _ in
            input.compactMap { Int($0).map(String.init) }
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func aThrowingTransformEndsTheStreamAndReleasesUpstream() async throws {
        let probe = Probe()
        var iterator = ProbePublisher<TestError>([1, 2, 3], probe: probe)
            .compactMap { (value: Int) throws(TestError) -> Int? in
                if value == 2 { throw .transform }
                return value
            }
            .makeAsyncIterator()
        #expect(try await iterator.next() == 1)
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
