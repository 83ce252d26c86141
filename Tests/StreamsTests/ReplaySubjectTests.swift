import Streams
import Testing

@Suite struct ReplaySubjectTests {
    @Test func aNewConsumerGetsTheLatestElementsThenTheLiveOnes() async {
        let subject = ReplaySubject<Int, Never>(count: 2)
        #expect(subject.send(1) == .noConsumers)
        subject.send(2)
        subject.send(3)
        #expect(subject.replayedElements == [2, 3])
        let subscription = subject.subscribe()
        subject.send(4)
        subject.finish()
        #expect(await collect(subscription) == [2, 3, 4])
    }

    @Test func afterTheEndAConsumerGetsTheReplayThenTheEnd() async throws {
        let finished = ReplaySubject<Int, TestError>(count: 2)
        for value in 1...3 { finished.send(value) }
        finished.finish()
        #expect(finished.send(4) == .terminated)
        #expect(await collect(finished) == .success([2, 3]))
        #expect(await collect(finished) == .success([2, 3]))

        let failed = ReplaySubject<Int, TestError>(count: 5)
        failed.send(1)
        failed.fail(.other(2))
        #expect(await collect(failed) == .failure(.other(2)))
        var iterator = failed.makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        await #expect(throws: TestError.other(2)) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test func keepsOnlyTheLatestElementsOverManySends() async {
        let subject = ReplaySubject<Int, Never>(count: 3)
        for value in 1...10 { subject.send(value) }
        #expect(subject.replayedElements == [8, 9, 10])
        let subscription = subject.subscribe()
        subject.send(11)
        #expect(subject.replayedElements == [9, 10, 11])
        subject.finish()
        #expect(await collect(subscription) == [8, 9, 10, 11])
        #expect(await collect(subject) == [9, 10, 11])
    }

    @Test func countZeroReplaysNothing() async {
        let subject = ReplaySubject<Int, Never>(count: 0)
        subject.send(1)
        let subscription = subject.subscribe()
        subject.send(2)
        subject.finish()
        #expect(await collect(subscription) == [2])
        #expect(subject.replayedElements == [])
    }

    @Test func theBufferingPolicyAppliesToLiveElementsAndCountsDrops() async {
        let subject = ReplaySubject<Int, Never>(count: 3, bufferingPolicy: .bufferingOldest(3))
        for value in 1...3 { subject.send(value) }
        let subscription = subject.subscribe()
        #expect(subject.send(4) == .dropped(count: 1))
        subject.finish()
        #expect(await collect(subscription) == [1, 2, 3])
        #expect(subject.droppedCount == 1)
    }

    @Test func cancellingAWaitingConsumerReturnsNilAndUnsubscribes() async {
        let subject = ReplaySubject<Int, Never>(count: 1)
        subject.send(1)
        let recorder = CombiningRecorder(subject.subscribe())
        await recorder.waitForEvents(1)
        await subject.waitForSuspendedConsumers(atLeast: 1)
        recorder.cancel()
        #expect(await recorder.completion() == [.value(1), .finished])
        #expect(subject.consumerCount == 0)
    }

    @Test func iteratingFromAnAlreadyCancelledTaskReturnsNil() async {
        let subject = ReplaySubject<Int, Never>(count: 1)
        subject.send(1)
        let values = await inCancelledTask {
            var iterator = subject.makeAsyncIterator()
            return [await iterator.next(), await iterator.next()]
        }
        #expect(values == [nil, nil])
        #expect(subject.consumerCount == 0)
    }

    @Test func droppingAnIteratorUnsubscribes() async {
        let subject = ReplaySubject<Int, Never>(count: 1)
        subject.send(1)
        do {
            var iterator = subject.makeAsyncIterator()
            #expect(await iterator.next() == 1)
        }
        #expect(subject.consumerCount == 0)
    }
}
