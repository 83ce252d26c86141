import Streams
import Testing

@Suite struct FilterPublisherTests {
    @Test func passesOnlyIncludedElementsInOrder() async {
        let filtered = ProbePublisher<Never>(Array(1...10)).filter { $0.isMultiple(of: 3) }
        #expect(await collect(filtered) == [3, 6, 9])
    }

    @Test func finishesWhenUpstreamIsEmptyOrNothingMatches() async {
        #expect(await collect(ProbePublisher<Never>([]).filter { _ in true }) == [])
        let probe = Probe()
        #expect(await collect(ProbePublisher<Never>([1, 2, 3], probe: probe).filter { _ in false }) == [])
        #expect(probe.nextCalls == 4)
        #expect(probe.iteratorsReleased == 1)
    }

    @Test func passesUpstreamErrorThroughUnchanged() async throws {
        let filtered = ProbePublisher<TestError>([1, 2, 3], ending: .fail(.other(7))).filter { $0 != 2 }
        var iterator = filtered.makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        #expect(try await iterator.next() == 3)
        await #expect(throws: TestError.other(7)) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test func throwingPredicateEndsStreamAndReleasesUpstream() async throws {
        let probe = Probe()
        let upstream = ProbePublisher<TestError>([1, 2, 3], probe: probe)
        let filtered = upstream.filter { (value: Int) throws(TestError) -> Bool in
            if value == 2 { throw .transform }
            return true
        }
        var iterator = filtered.makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        await #expect(throws: TestError.transform) { try await iterator.next() }
        #expect(probe.iteratorsReleased == 1)
        #expect(try await iterator.next() == nil)
        #expect(probe.nextCalls == 2)
    }

    @Test func keepsReturningNilAfterTheEndWithoutPullingUpstream() async {
        let probe = Probe()
        var iterator = ProbePublisher<Never>([1, 2], probe: probe).filter { $0 == 1 }.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil)
        #expect(probe.nextCalls == 3)
    }

    @Test func droppingTheIteratorEarlyReleasesUpstream() async {
        let probe = Probe()
        do {
            var iterator = ProbePublisher<Never>([1, 2, 3], probe: probe).filter { _ in true }.makeAsyncIterator()
            #expect(await iterator.next() == 1)
        }
        #expect(probe.iteratorsReleased == 1)
    }

    @Test func cancellingTheConsumerEndsIterationWithNil() async {
        let subject = PassthroughSubject<Int, Never>()
        let values = subject.subscribe().filter { _ in true }
        let consumer = Task { await collect(values) }
        await subject.waitForSuspendedConsumers(atLeast: 1)
        consumer.cancel()
        #expect(await consumer.value == [])
    }

    @Test func startingFromAnAlreadyCancelledTaskReturnsNil() async {
        let subject = PassthroughSubject<Int, Never>()
        let values = subject.subscribe().filter { _ in true }
        subject.send(1)
        #expect(await inCancelledTask { await collect(values) } == [])
    }

    @Test func isPreferredOverTheStandardLibraryFilter() {
        let filtered = ProbePublisher<Never>([1]).filter { $0 > 0 }
        #expect(type(of: filtered) == FilterPublisher<ProbePublisher<Never>>.self)
    }
}
