import Streams
import Testing

@Suite struct MapPublisherTests {
    @Test func transformsEveryElementInOrder() async {
        let mapped = ProbePublisher<Never>([1, 2, 3]).map { $0 * 10 }
        #expect(await collect(mapped) == [10, 20, 30])
    }

    @Test func finishesWhenUpstreamIsEmpty() async {
        let probe = Probe()
        let mapped = ProbePublisher<Never>([], probe: probe).map { $0 + 1 }
        #expect(await collect(mapped) == [])
        #expect(probe.iteratorsReleased == 1, "the upstream iterator is released at the end")
    }

    @Test func passesUpstreamErrorThroughUnchanged() async throws {
        let mapped = ProbePublisher<TestError>([1, 2], ending: .fail(.upstream)).map { $0 * 2 }
        #expect(await collect(mapped) == .failure(.upstream))

        var iterator = mapped.makeAsyncIterator()
        #expect(try await iterator.next() == 2)
        #expect(try await iterator.next() == 4)
        await #expect(throws: TestError.upstream) { try await iterator.next() }
    }

    @Test func throwingTransformEndsStreamAndReleasesUpstream() async throws {
        let probe = Probe()
        let upstream = ProbePublisher<TestError>([1, 2, 3, 4], probe: probe)
        let mapped = upstream.map { (value: Int) throws(TestError) -> Int in
            if value == 2 { throw TestError.transform }
            return value
        }
        var iterator = mapped.makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        await #expect(throws: TestError.transform) { try await iterator.next() }
        #expect(probe.iteratorsReleased == 1, "a throwing transform cancels its upstream at once")
        #expect(try await iterator.next() == nil)
        #expect(probe.nextCalls == 2, "after the error, upstream is not pulled again")
    }

    @Test func keepsReturningNilAfterTheEndWithoutPullingUpstream() async {
        let probe = Probe()
        var iterator = ProbePublisher<Never>([1], probe: probe).map { $0 }.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil)
        #expect(probe.nextCalls == 2)
    }

    @Test func droppingTheIteratorEarlyReleasesUpstream() async {
        let probe = Probe()
        let mapped = ProbePublisher<Never>([1, 2, 3], probe: probe).map { $0 }
        do {
            var iterator = mapped.makeAsyncIterator()
            #expect(await iterator.next() == 1)
        }
        #expect(probe.iteratorsReleased == 1)
    }

    @Test func cancellingTheConsumerEndsIterationWithNil() async {
        let subject = PassthroughSubject<Int, Never>()
        let values = subject.subscribe().map { $0 * 2 }
        let consumer = Task { await collect(values) }
        await subject.waitForSuspendedConsumers(atLeast: 1)
        consumer.cancel()
        #expect(await consumer.value == [])
        #expect(subject.consumerCount == 0)
    }

    @Test func startingFromAnAlreadyCancelledTaskReturnsNil() async {
        let subject = PassthroughSubject<Int, Never>()
        let values = subject.subscribe().map { $0 * 2 }
        subject.send(1)
        let result = await inCancelledTask { await collect(values) }
        #expect(result == [])
    }

    @Test @MainActor func runsTheTransformOnTheConsumersIsolation() async {
        let mapped = ProbePublisher<Never>([1, 2]).map { value -> Int in
            MainActor.assertIsolated("map's transform runs inline on the consumer's actor")
            return value + 1
        }
        #expect(await collect(mapped) == [2, 3])
    }

    @Test func isPreferredOverTheStandardLibraryMap() {
        let mapped = ProbePublisher<Never>([1]).map { String($0) }
        #expect(type(of: mapped) == MapPublisher<ProbePublisher<Never>, String>.self)
    }

    @Test func isSendableWhenItsBaseIs() {
        func requireSendable(_: some Sendable) {}
        requireSendable(ProbePublisher<Never>([1]).map { $0 })
        requireSendable(PassthroughSubject<Int, Never>().map { $0 })
    }
}
