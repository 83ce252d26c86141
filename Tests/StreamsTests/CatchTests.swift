import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct CatchTests {
    let lifecycle = MarbleLifecycle(
        onSubject: { $0.catch { _ in ProbePublisher<TestError>([0]) } },
        onProbe: { $0.catch { _ in ProbePublisher<TestError>([0]) } }
    )

    @Test func continuesWithTheReplacementAtTheFailureInstant() async {
        let result = await Marble.validate("ab-^", expected: "ab-[xy|]") { input, _ in
            input.catch { _ in
                AsyncStream<String> { continuation in
                    continuation.yield("x")
                    continuation.yield("y")
                    continuation.finish()
                }.publisher
            }
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func theReplacementIsMadeFromTheErrorAndItsFailureIsTheNewFailure() async {
        let replaced = ProbePublisher<TestError>([1, 2], ending: .fail(.other(9)))
            .catch { error -> ProbePublisher<Never> in
                guard case .other(let code) = error else { return ProbePublisher([]) }
                return ProbePublisher([code])
            }
        #expect(await collect(replaced) == [1, 2, 9])
    }

    @Test func aFinishingUpstreamNeverCallsTheHandler() async {
        let values = ProbePublisher<TestError>([1]).catch { _ -> ProbePublisher<TestError> in
            Issue.record("no failure, no handler")
            return ProbePublisher([])
        }
        #expect((try? await collect(values).get()) == [1])
    }

    @Test func theReplacementsFailureEndsTheStream() async throws {
        var iterator = ProbePublisher<TestError>([], ending: .fail(.upstream))
            .catch { _ in ProbePublisher<TestError>([5], ending: .fail(.other(1))) }
            .makeAsyncIterator()
        #expect(try await iterator.next() == 5)
        await #expect(throws: TestError.other(1)) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test func emptyUpstreamFinishes() async {
        #expect(
            (try? await collect(ProbePublisher<TestError>([]).catch { _ in ProbePublisher<TestError>([1]) }).get())
                == [])
    }

    @Test func cancellingTheConsumerEndsWithNil() async { await lifecycle.cancellingTheConsumerEndsWithNil() }
    @Test func startingFromAnAlreadyCancelledTaskReturnsNil() async { await lifecycle.alreadyCancelledTaskReturnsNil() }
    @Test func droppingTheIteratorEarlyReleasesUpstream() async throws {
        try await lifecycle.droppingTheIteratorEarlyReleasesUpstream()
    }
    @Test func callsAfterTheEndReturnNil() async throws { try await lifecycle.callsAfterTheEndReturnNil() }
}
