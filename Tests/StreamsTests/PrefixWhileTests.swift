import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct PrefixWhileTests {
    let lifecycle = MarbleLifecycle(
        onSubject: { $0.prefix(while: { _ in true }) }, onProbe: { $0.prefix(while: { _ in true }) })

    @Test func finishesAtTheInstantOfTheFirstFailingElement() async {
        let result = await Marble.validate("ab-x-c", expected: "ab-|") { input, _ in
            input.prefix(while: { $0 != "x" })
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func inclusivePassesOnTheFailingElementThenFinishes() async {
        let result = await Marble.validate("ab-x-c", expected: "ab-[x|]") { input, _ in
            input.prefix(while: { $0 != "x" }, inclusive: true)
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func releasesTheUpstreamAtTheFailingElement() async {
        let subject = PassthroughSubject<Int, Never>()
        var iterator = subject.prefix(while: { $0 < 3 }, inclusive: true).makeAsyncIterator()
        subject.send(1)
        subject.send(3)
        #expect(await iterator.next() == 1)
        #expect(subject.consumerCount == 1)
        #expect(await iterator.next() == 3)
        #expect(subject.consumerCount == 0, "the subscription ends with the failing element")
        #expect(await iterator.next() == nil)
    }

    @Test func emptyUpstreamFinishes() async {
        #expect(await collect(ProbePublisher<Never>([]).prefix(while: { _ in true })) == [])
    }

    @Test func upstreamFailurePassesThroughUnchanged() async {
        let result = await Marble.validate("a^", expected: "a^") { input, _ in input.prefix(while: { _ in true }) }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func aThrowingPredicateEndsTheStreamAndReleasesUpstream() async throws {
        let probe = Probe()
        var iterator = ProbePublisher<TestError>([1, 2], probe: probe)
            .prefix(while: { (value: Int) throws(TestError) -> Bool in
                if value == 2 { throw .transform }
                return true
            })
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
