import Streams
import Testing

@Suite struct CurrentValueSubjectTests {
    @Test func aNewConsumerGetsTheCurrentValueFirst() async {
        let subject = CurrentValueSubject<Int, Never>(0)
        #expect(subject.value == 0)
        #expect(subject.send(1) == .noConsumers, "no consumer, but the value still changes")
        #expect(subject.value == 1)
        let subscription = subject.subscribe()
        subject.value = 2
        subject.send(3)
        subject.finish()
        #expect(await collect(subscription) == [1, 2, 3])
        #expect(subject.value == 3)
    }

    @Test func everyConsumerStartsWithTheValueCurrentWhenItSubscribed() async {
        let subject = CurrentValueSubject<Int, Never>(10)
        let first = subject.subscribe()
        subject.send(11)
        let second = subject.subscribe()
        subject.send(12)
        subject.finish()
        #expect(await collect(first) == [10, 11, 12])
        #expect(await collect(second) == [11, 12])
    }

    @Test func afterTheEndAConsumerGetsOnlyTheEndAndSendsAreIgnored() async {
        let finished = CurrentValueSubject<Int, TestError>(1)
        finished.finish()
        #expect(finished.send(2) == .terminated)
        finished.value = 3
        #expect(finished.value == 1, "sends after the end leave the value unchanged")
        #expect(await collect(finished) == .success([]))

        let failed = CurrentValueSubject<Int, TestError>(1)
        let before = failed.subscribe()
        failed.fail(.upstream)
        #expect(await collect(before) == .failure(.upstream), "the value, then the failure")
        #expect(await collect(failed) == .failure(.upstream))
    }

    @Test func theBufferingPolicyAppliesToLaterSendsAndCountsDrops() async {
        let subject = CurrentValueSubject<Int, Never>(0, bufferingPolicy: .bufferingOldest(1))
        let subscription = subject.subscribe()
        #expect(subject.send(1) == .dropped(count: 1), "the current value fills the one-element buffer")
        #expect(subject.droppedCount == 1)
        subject.finish()
        #expect(await collect(subscription) == [0])

        let newest = CurrentValueSubject<Int, Never>(0, bufferingPolicy: .bufferingNewest(1))
        let latest = newest.subscribe()
        newest.send(1)
        newest.send(2)
        newest.finish()
        #expect(await collect(latest) == [2])
        #expect(newest.droppedCount == 2)
    }

    @Test func cancellingAWaitingConsumerReturnsNilAndUnsubscribes() async {
        let subject = CurrentValueSubject<Int, Never>(0)
        let recorder = CombiningRecorder(subject.subscribe())
        await recorder.waitForEvents(1)
        await subject.waitForSuspendedConsumers(atLeast: 1)
        recorder.cancel()
        #expect(await recorder.completion() == [.value(0), .finished])
        #expect(subject.consumerCount == 0)
    }

    @Test func iteratingFromAnAlreadyCancelledTaskReturnsNil() async {
        let subject = CurrentValueSubject<Int, Never>(0)
        let values = await inCancelledTask {
            var iterator = subject.makeAsyncIterator()
            return [await iterator.next(), await iterator.next()]
        }
        #expect(values == [nil, nil])
        #expect(subject.consumerCount == 0)
    }

    @Test func droppingAnIteratorUnsubscribes() async {
        let subject = CurrentValueSubject<Int, Never>(0)
        do {
            var iterator = subject.makeAsyncIterator()
            #expect(await iterator.next() == 0)
            #expect(subject.consumerCount == 1)
        }
        #expect(subject.consumerCount == 0)
    }

    @Test func releasingTheSubjectFinishesItsConsumers() async {
        var subject: CurrentValueSubject<Int, Never>? = CurrentValueSubject(5)
        let subscription = subject!.subscribe()
        subject = nil
        #expect(await collect(subscription) == [5])
    }
}
