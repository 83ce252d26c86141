import Streams
import Testing

@Suite struct PrefixPublisherTests {
    @Test func passesOnTheFirstElementsThenFinishes() async {
        #expect(await collect(ProbePublisher<Never>([1, 2, 3, 4]).prefix(2)) == [1, 2])
    }

    @Test func finishesWithUpstreamWhenItIsShorter() async {
        #expect(await collect(ProbePublisher<Never>([1, 2]).prefix(5)) == [1, 2])
        #expect(await collect(ProbePublisher<Never>([]).prefix(5)) == [])
    }

    @Test func prefixZeroNeverPullsUpstream() async {
        let probe = Probe()
        let prefix = ProbePublisher<Never>([1, 2], probe: probe).prefix(0)
        var iterator = prefix.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil)
        #expect(probe.counts == Probe.Counts(), "prefix(0) neither makes nor pulls an upstream iterator")
    }

    @Test func releasesUpstreamAtTheInstantOfTheLastElement() async {
        let probe = Probe()
        var iterator = ProbePublisher<Never>([1, 2, 3, 4], probe: probe).prefix(2).makeAsyncIterator()
        #expect(await iterator.next() == 1)
        #expect(probe.iteratorsReleased == 0)
        #expect(await iterator.next() == 2)
        #expect(probe.iteratorsReleased == 1, "released before the n-th element is returned")
        #expect(probe.nextCalls == 2)
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil)
        #expect(probe.nextCalls == 2, "never pulled after the n-th element")
    }

    @Test func unsubscribesFromASubjectAtTheLastElement() async {
        let subject = PassthroughSubject<Int, Never>()
        var iterator = subject.prefix(2).makeAsyncIterator()
        subject.send(1)
        subject.send(2)
        #expect(await iterator.next() == 1)
        #expect(subject.consumerCount == 1)
        #expect(await iterator.next() == 2)
        #expect(subject.consumerCount == 0, "the subscription ends with the n-th element, not at the next one")
        #expect(subject.send(3) == .noConsumers)
        #expect(await iterator.next() == nil)
    }

    @Test func passesUpstreamErrorThroughUnchanged() async throws {
        let probe = Probe()
        let publisher = ProbePublisher<TestError>([1], ending: .fail(.upstream), probe: probe)
        var iterator = publisher.prefix(3).makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        await #expect(throws: TestError.upstream) { try await iterator.next() }
        #expect(probe.iteratorsReleased == 1)
        #expect(try await iterator.next() == nil)
        #expect(probe.nextCalls == 2)
    }

    @Test func droppingTheIteratorEarlyReleasesUpstream() async {
        let probe = Probe()
        do {
            var iterator = ProbePublisher<Never>([1, 2, 3], probe: probe).prefix(3).makeAsyncIterator()
            #expect(await iterator.next() == 1)
        }
        #expect(probe.iteratorsReleased == 1)
    }

    @Test func cancellingTheConsumerEndsIterationWithNil() async {
        let subject = PassthroughSubject<Int, Never>()
        let values = subject.subscribe().prefix(10)
        let consumer = Task { await collect(values) }
        subject.send(1)
        await subject.waitForSuspendedConsumers(atLeast: 1)
        consumer.cancel()
        #expect(await consumer.value == [1])
        #expect(subject.consumerCount == 0)
    }

    @Test func startingFromAnAlreadyCancelledTaskReturnsNil() async {
        let subject = PassthroughSubject<Int, Never>()
        let values = subject.subscribe().prefix(10)
        subject.send(1)
        #expect(await inCancelledTask { await collect(values) } == [])
    }

    @Test func chainsWithMapAndFilterAsPublishers() async {
        let chain = ProbePublisher<Never>(Array(1...100))
            .map { $0 * 3 }
            .filter { $0.isMultiple(of: 2) }
            .prefix(4)
        #expect(type(of: chain) == PrefixPublisher<FilterPublisher<MapPublisher<ProbePublisher<Never>, Int>>>.self)
        #expect(await collect(chain) == [6, 12, 18, 24])
    }
}
