import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct MaterializeTests {
    let lifecycle = MarbleLifecycle(onSubject: { $0.materialize() }, onProbe: { $0.materialize() })

    static func symbol(_ event: Event<String, MarbleError>) -> String {
        switch event {
        case .element(let value): value
        case .finished: "F"
        case .failure: "E"
        }
    }

    @Test func theFinishBecomesAValueThenTheStreamEnds() async {
        let result = await Marble.validate("a-b|", expected: "a-b[F|]") { input, _ in
            input.materialize().map(Self.symbol)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func theFailureBecomesAValueThenTheStreamEnds() async {
        let result = await Marble.validate("a^", expected: "a[E|]") { input, _ in
            input.materialize().map(Self.symbol)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func eventsCarryTheElementsAndTheError() async {
        let events = await collect(ProbePublisher<TestError>([1], ending: .fail(.upstream)).materialize())
        #expect(events == [.element(1), .failure(.upstream)])
    }

    @Test func emptyUpstreamIsJustFinished() async {
        #expect(await collect(ProbePublisher<TestError>([]).materialize()) == [.finished])
    }

    @Test func cancellationIsNotAFinish() async {
        let subject = PassthroughSubject<Int, TestError>()
        let events = subject.subscribe().materialize()
        let consumer = Task { await collect(events) }
        subject.send(1)
        await subject.waitForSuspendedConsumers(atLeast: 1)
        consumer.cancel()
        #expect(await consumer.value == [.element(1)])
    }

    @Test func cancellingTheConsumerEndsWithNil() async { await lifecycle.cancellingTheConsumerEndsWithNil() }
    @Test func startingFromAnAlreadyCancelledTaskReturnsNil() async { await lifecycle.alreadyCancelledTaskReturnsNil() }
    @Test func droppingTheIteratorEarlyReleasesUpstream() async throws {
        try await lifecycle.droppingTheIteratorEarlyReleasesUpstream()
    }
    @Test func callsAfterTheEndReturnNil() async {
        let probe = Probe()
        var iterator = ProbePublisher<TestError>([], ending: .fail(.upstream), probe: probe).materialize()
            .makeAsyncIterator()
        #expect(await iterator.next() == .failure(.upstream))
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil)
        #expect(probe.nextCalls == 1, "not pulled again after the end")
    }
}
