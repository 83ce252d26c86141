import Streams
import Synchronization
import Testing

@Suite struct MergeTests {
    @Test func deliversElementsInArrivalOrderAndFinishesWhenAllFinish() async {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let recorder = CombiningRecorder(a.merge(b))
        await a.waitForSuspendedConsumers(atLeast: 1)
        await b.waitForSuspendedConsumers(atLeast: 1)
        a.send(1)
        await recorder.waitForEvents(1)
        b.send(2)
        await recorder.waitForEvents(2)
        a.send(3)
        await recorder.waitForEvents(3)
        a.finish()
        b.send(4)
        await recorder.waitForEvents(4)
        #expect(recorder.events == [.value(1), .value(2), .value(3), .value(4)], "a finished; b still runs")
        b.finish()
        #expect(await recorder.completion() == [.value(1), .value(2), .value(3), .value(4), .finished])
    }

    @Test func mergesSynchronousBasesCompletely() async {
        let merged = ProbePublisher<Never>([1, 2, 3]).merge(ProbePublisher([10, 20]))
        let values = await collect(merged)
        #expect(values.sorted() == [1, 2, 3, 10, 20])
        #expect(values.filter { $0 < 10 } == [1, 2, 3], "each base keeps its order")
    }

    @Test func mergesThreeAndAnArray() async {
        let three = ProbePublisher<Never>([1]).merge(ProbePublisher([2]), ProbePublisher([3]))
        #expect(await collect(three).sorted() == [1, 2, 3])
        let many = merge((0..<10).map { ProbePublisher<Never>([$0, $0 + 100]) })
        #expect(await collect(many).sorted() == (0..<10).flatMap { [$0, $0 + 100] }.sorted())
    }

    @Test func emptyUpstreamsFinishAtOnce() async {
        #expect(await collect(ProbePublisher<Never>([]).merge(ProbePublisher([]))) == [])
        #expect(await collect(merge([ProbePublisher<Never>]())) == [])
    }
}

extension MergeTests {
    @Test func elementsAlreadyReceivedAreDeliveredBeforeTheError() async throws {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        var iterator = a.subscribe().merge(b.subscribe()).makeAsyncIterator()
        a.send(1)
        #expect(try await iterator.next() == 1)
        await a.waitForSuspendedConsumers(atLeast: 1)
        a.send(2)
        await iterator.waitForBufferedElements(atLeast: 1)
        b.fail(.upstream)
        #expect(try await iterator.next() == 2, "buffered before the failure: delivered first")
        await #expect(throws: TestError.upstream) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
        #expect(try await iterator.next() == nil, "after the end, nil again")
    }

    @Test func aFailureCancelsTheOtherBases() async {
        let lifecycle = CombiningLifecycle()
        let failing = PassthroughSubject<Int, TestError>()
        let merged = lifecycle.never(failure: TestError.self).merge(
            failing.subscribe(), lifecycle.never(failure: TestError.self))
        let recorder = CombiningRecorder(merged)
        await lifecycle.waitForStarts(2)
        failing.fail(.other(7))
        #expect(await recorder.completion() == [.failed(.other(7))])
        await lifecycle.waitForCancellations(2)
        #expect(lifecycle.cancelledCount == 2)
    }

    @Test func upstreamFailureWithNothingBufferedIsThrownAtOnce() async {
        let merged = ProbePublisher<TestError>([], ending: .fail(.upstream)).merge(CombiningNeverPublisher())
        #expect(await collect(merged) == .failure(.upstream))
    }

    @Test func cancellingTheConsumerCancelsEveryBase() async {
        let lifecycle = CombiningLifecycle()
        let recorder = CombiningRecorder(merge([lifecycle.never(), lifecycle.never(), lifecycle.never()]))
        await lifecycle.waitForStarts(3)
        recorder.cancel()
        #expect(await recorder.completion() == [.finished], "cancellation ends with nil")
        await lifecycle.waitForCancellations(3)
    }

    @Test func iteratingFromAnAlreadyCancelledTaskStartsNothing() async {
        let lifecycle = CombiningLifecycle()
        let merged = lifecycle.never().merge(lifecycle.never())
        let values = await inCancelledTask {
            var iterator = merged.makeAsyncIterator()
            let first = await iterator.next()
            let second = await iterator.next()
            return [first, second]
        }
        #expect(values == [nil, nil])
        #expect(lifecycle.startedCount == 0)
    }

    @Test func droppingTheIteratorEarlyCancelsTheBases() async {
        let lifecycle = CombiningLifecycle()
        let subject = PassthroughSubject<Int, Never>()
        let subscription = subject.subscribe()
        subject.send(1)
        do {
            var iterator = lifecycle.never().merge(subscription).makeAsyncIterator()
            #expect(await iterator.next() == 1)
            await lifecycle.waitForStarts(1)
        }
        await lifecycle.waitForCancellations(1)
    }

    @Test @MainActor func consumesFromTheMainActor() async {
        var seen: [Int] = []
        for await value in ProbePublisher<Never>([1, 2]).merge(ProbePublisher([3])) {
            MainActor.assertIsolated()
            seen.append(value)
        }
        #expect(seen.sorted() == [1, 2, 3])
    }
}
