import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct ScanTests {
    let lifecycle = MarbleLifecycle(onSubject: { $0.scan(0, +) }, onProbe: { $0.scan(0, +) })

    @Test func emitsTheRunningResultAtTheInstantOfEachInput() async {
        let result = await Marble.validate("a-b-c|", expected: "a-(ab)-(abc)|") { input, _ in
            input.scan("", +)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func eachIteratorStartsFromTheInitialResult() async {
        let sums = ProbePublisher<Never>([1, 2, 3]).scan(10, +)
        #expect(await collect(sums) == [11, 13, 16])
        #expect(await collect(sums) == [11, 13, 16])
    }

    @Test func emptyUpstreamEmitsNothing() async {
        #expect(await collect(ProbePublisher<Never>([]).scan(0, +)) == [])
    }

    @Test func upstreamFailurePassesThroughUnchanged() async {
        let result = await Marble.validate("a^", expected: "a^") { input, _ in input.scan("", +) }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func aThrowingClosureEndsTheStreamAndReleasesUpstream() async throws {
        let probe = Probe()
        var iterator = ProbePublisher<TestError>([1, 2, 3], probe: probe)
            .scan(0) { (sum: Int, value: Int) throws(TestError) -> Int in
                if value == 2 { throw .transform }
                return sum + value
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
