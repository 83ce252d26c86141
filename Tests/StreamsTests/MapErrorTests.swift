import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct MapErrorTests {
    struct Wrapped: Error, Equatable { let inner: TestError }

    let lifecycle = MarbleLifecycle(onSubject: { $0.mapError(Wrapped.init) }, onProbe: { $0.mapError(Wrapped.init) })

    @Test func transformsTheFailureAtItsInstant() async {
        let outputs = await Marble.run(
            inputs: [.value(1, at: 0), .failure(TestError.upstream, at: 2)]) { input, _ in
                input.mapError(Wrapped.init)
            }
        #expect(outputs.mismatch(expected: [.value(1, at: 0), .failure(Wrapped(inner: .upstream), at: 2)]) == nil)
    }

    @Test func elementsAndTheFinishPassThrough() async {
        let result = await Marble.validate("a-b|", expected: "a-b|") { input, _ in
            input.mapError { _ in TestError.other(0) }
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func emptyUpstreamFinishes() async {
        #expect((try? await collect(ProbePublisher<TestError>([]).mapError(Wrapped.init)).get()) == [])
    }

    @Test func cancellingTheConsumerEndsWithNil() async { await lifecycle.cancellingTheConsumerEndsWithNil() }
    @Test func startingFromAnAlreadyCancelledTaskReturnsNil() async { await lifecycle.alreadyCancelledTaskReturnsNil() }
    @Test func droppingTheIteratorEarlyReleasesUpstream() async throws {
        try await lifecycle.droppingTheIteratorEarlyReleasesUpstream()
    }
    @Test func callsAfterTheEndReturnNil() async throws { try await lifecycle.callsAfterTheEndReturnNil() }
}
