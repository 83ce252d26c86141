import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct TimestampTests {
    typealias Instant = ManualClock.Instant
    let lifecycle = MarbleLifecycle(
        onSubject: { $0.timestamp(clock: ManualClock()) },
        onProbe: { $0.timestamp(clock: ManualClock()) }
    )

    @Test func pairsEachElementWithTheClocksNowWhenItArrives() async {
        let outputs = await Marble.run(
            inputs: [.value("a", at: 1), .value("b", at: 4), .finish(at: 5)] as [MarbleEvent<String, MarbleError>]
        ) { input, clock in
            input.timestamp(clock: clock)
        }
        #expect(
            outputs.mismatch(expected: [
                .value(Timestamped(value: "a", instant: Instant(offset: .seconds(1))), at: 1),
                .value(Timestamped(value: "b", instant: Instant(offset: .seconds(4))), at: 4),
                .finish(at: 5),
            ]) == nil)
    }

    @Test func continuousClockConvenience() async {
        let before = ContinuousClock.now
        let stamped = await collect(ProbePublisher<Never>([1]).timestamp())
        #expect(stamped.map(\.value) == [1])
        #expect(stamped.allSatisfy { $0.instant >= before })
    }

    @Test func emptyUpstreamFinishes() async {
        #expect(await collect(ProbePublisher<Never>([]).timestamp(clock: ManualClock())).isEmpty)
    }

    @Test func upstreamFailurePassesThroughUnchanged() async {
        let result = await collect(
            ProbePublisher<TestError>([1], ending: .fail(.upstream)).timestamp(clock: ManualClock()))
        #expect(throws: TestError.upstream) { try result.get() }
    }

    @Test func cancellingTheConsumerEndsWithNil() async { await lifecycle.cancellingTheConsumerEndsWithNil() }
    @Test func startingFromAnAlreadyCancelledTaskReturnsNil() async { await lifecycle.alreadyCancelledTaskReturnsNil() }
    @Test func droppingTheIteratorEarlyReleasesUpstream() async throws {
        try await lifecycle.droppingTheIteratorEarlyReleasesUpstream()
    }
    @Test func callsAfterTheEndReturnNil() async throws { try await lifecycle.callsAfterTheEndReturnNil() }
}
