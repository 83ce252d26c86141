import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct DropFirstTests {
    let lifecycle = MarbleLifecycle(onSubject: { $0.dropFirst() }, onProbe: { $0.dropFirst() })

    @Test func skipsTheFirstElementsThenPassesOnAtTheirInstants() async {
        let result = await Marble.validate("ab-c-d|", expected: "---c-d|") { input, _ in
            input.dropFirst(2)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func dropFirstZeroPassesEverything() async {
        #expect(await collect(ProbePublisher<Never>([1, 2]).dropFirst(0)) == [1, 2])
    }

    @Test func shorterUpstreamFinishesEmpty() async {
        #expect(await collect(ProbePublisher<Never>([1]).dropFirst(3)) == [])
        #expect(await collect(ProbePublisher<Never>([]).dropFirst()) == [])
    }

    @Test func upstreamFailurePassesThroughAlsoWhileSkipping() async {
        let result = await Marble.validate("a^", expected: "-^") { input, _ in input.dropFirst(2) }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func cancellingTheConsumerEndsWithNil() async { await lifecycle.cancellingTheConsumerEndsWithNil() }
    @Test func startingFromAnAlreadyCancelledTaskReturnsNil() async { await lifecycle.alreadyCancelledTaskReturnsNil() }
    @Test func droppingTheIteratorEarlyReleasesUpstream() async throws {
        try await lifecycle.droppingTheIteratorEarlyReleasesUpstream()
    }
    @Test func callsAfterTheEndReturnNil() async throws { try await lifecycle.callsAfterTheEndReturnNil() }
}
