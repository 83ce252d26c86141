import Dispatch
import Streams
import Synchronization
import Testing

@Suite struct PassthroughSubjectTests {
    @Test func deliversSentElementsInOrderThenFinishes() async {
        let subject = PassthroughSubject<Int, Never>()
        var iterator = subject.makeAsyncIterator()
        #expect(subject.send(1) == .enqueued(consumers: 1))
        subject.send(2)
        subject.send(3)
        subject.finish()
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == 2)
        #expect(await iterator.next() == 3)
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil, "after nil, next keeps returning nil")
    }

    @Test func makingAnIteratorSubscribesAtOnce() async {
        let subject = PassthroughSubject<Int, Never>()
        #expect(subject.send(0) == .noConsumers)
        var iterator = subject.makeAsyncIterator()
        #expect(subject.consumerCount == 1)
        subject.send(1)
        subject.finish()
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == nil)
    }

    @Test func subscriptionReceivesEverythingSentBeforeItsTaskStarts() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscription = subject.subscribe()
        for value in 1...5 { subject.send(value) }
        subject.finish()
        let consumer = Task { await collect(subscription.map { $0 * 10 }) }
        #expect(await consumer.value == [10, 20, 30, 40, 50])
    }

    @Test func laterIteratorsOfASubscriptionSubscribeAfresh() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscription = subject.subscribe()
        subject.send(1)
        var first = subscription.makeAsyncIterator()
        var second = subscription.makeAsyncIterator()
        #expect(subject.consumerCount == 2)
        subject.send(2)
        subject.finish()
        #expect(await first.next() == 1)
        #expect(await first.next() == 2)
        #expect(await second.next() == 2)
        #expect(await second.next() == nil)
    }

    @Test func releasingASubscriptionWithoutIteratingUnsubscribes() {
        let subject = PassthroughSubject<Int, Never>()
        do {
            let subscription = subject.subscribe()
            #expect(subject.consumerCount == 1)
            _ = subscription
        }
        #expect(subject.consumerCount == 0)
    }

    @Test func multicastsToEveryConsumer() async {
        let subject = PassthroughSubject<Int, Never>()
        let a = subject.subscribe()
        let b = subject.subscribe()
        #expect(subject.send(1) == .enqueued(consumers: 2))
        subject.send(2)
        subject.finish()
        #expect(await collect(a) == [1, 2])
        #expect(await collect(b) == [1, 2])
    }

    @Test func elementsSentWithoutConsumersGoNowhereAndAreNotCounted() async {
        let subject = PassthroughSubject<Int, Never>(bufferingPolicy: .bufferingOldest(1))
        #expect(subject.send(1) == .noConsumers)
        #expect(subject.send(2) == .noConsumers)
        #expect(subject.droppedCount == 0)
        let late = subject.subscribe()
        subject.send(3)
        subject.finish()
        #expect(await collect(late) == [3])
    }

    @Test func handsAnElementToAWaitingConsumerEvenWithAZeroBuffer() async {
        let subject = PassthroughSubject<Int, Never>(bufferingPolicy: .bufferingNewest(0))
        let subscription = subject.subscribe()
        let consumer = Task { await collect(subscription.prefix(1)) }
        await subject.waitForSuspendedConsumers(atLeast: 1)
        #expect(subject.send(7) == .enqueued(consumers: 1))
        #expect(await consumer.value == [7])
        #expect(subject.droppedCount == 0)
    }

    @Test func zeroBufferDropsElementsForABusyConsumer() {
        let subject = PassthroughSubject<Int, Never>(bufferingPolicy: .bufferingOldest(0))
        let subscription = subject.subscribe()
        #expect(subject.send(1) == .dropped(count: 1))
        #expect(subject.droppedCount == 1)
        _ = subscription
    }

    @Test func bufferingNewestKeepsTheLatestAndCountsTheDropped() async {
        let subject = PassthroughSubject<Int, Never>(bufferingPolicy: .bufferingNewest(2))
        let subscription = subject.subscribe()
        let results = (1...5).map { subject.send($0) }
        let expected: [SubjectSendResult] = [
            .enqueued(consumers: 1), .enqueued(consumers: 1),
            .dropped(count: 1), .dropped(count: 1), .dropped(count: 1),
        ]
        #expect(results == expected)
        #expect(subject.droppedCount == 3)
        subject.finish()
        #expect(await collect(subscription) == [4, 5])
    }

    @Test func bufferingOldestKeepsTheEarliestAndCountsTheDropped() async {
        let subject = PassthroughSubject<Int, Never>(bufferingPolicy: .bufferingOldest(2))
        let subscription = subject.subscribe()
        let results = (1...5).map { subject.send($0) }
        let expected: [SubjectSendResult] = [
            .enqueued(consumers: 1), .enqueued(consumers: 1),
            .dropped(count: 1), .dropped(count: 1), .dropped(count: 1),
        ]
        #expect(results == expected)
        #expect(subject.droppedCount == 3)
        subject.finish()
        #expect(await collect(subscription) == [1, 2])
    }

    @Test func droppedCountAddsUpOverConsumers() async {
        let subject = PassthroughSubject<Int, Never>(bufferingPolicy: .bufferingOldest(1))
        let a = subject.subscribe()
        var b = subject.makeAsyncIterator()
        subject.send(1)
        #expect(await b.next() == 1)
        #expect(subject.send(2) == .dropped(count: 1), "only a's buffer is full")
        #expect(subject.send(3) == .dropped(count: 2))
        #expect(subject.droppedCount == 3)
        subject.finish()
        #expect(await collect(a) == [1])
        #expect(await b.next() == 2)
        #expect(await b.next() == nil)
    }

    @Test func unboundedBufferNeverDrops() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscription = subject.subscribe()
        for value in 0..<10_000 { subject.send(value) }
        subject.finish()
        #expect(await collect(subscription) == Array(0..<10_000))
        #expect(subject.droppedCount == 0)
    }

    @Test func failureArrivesAfterBufferedElementsThenNil() async throws {
        let subject = PassthroughSubject<Int, TestError>()
        var iterator = subject.makeAsyncIterator()
        subject.send(1)
        subject.fail(.upstream)
        #expect(try await iterator.next() == 1)
        await #expect(throws: TestError.upstream) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
        #expect(subject.consumerCount == 0)
    }

    @Test func failureResumesAWaitingConsumer() async {
        let subject = PassthroughSubject<Int, TestError>()
        let subscription = subject.subscribe()
        let consumer = Task { await collect(subscription) }
        await subject.waitForSuspendedConsumers(atLeast: 1)
        subject.fail(.other(3))
        #expect(await consumer.value == .failure(.other(3)))
    }

    @Test func terminatesOnlyOnce() async throws {
        let subject = PassthroughSubject<Int, TestError>()
        var iterator = subject.makeAsyncIterator()
        subject.finish()
        subject.fail(.upstream)
        subject.finish()
        #expect(subject.isTerminated)
        #expect(subject.send(1) == .terminated)
        #expect(try await iterator.next() == nil, "the first termination wins; the later failure is ignored")
        #expect(try await iterator.next() == nil)
    }

    @Test func lateConsumersReceiveTheTermination() async {
        let finished = PassthroughSubject<Int, TestError>()
        finished.finish()
        #expect(await collect(finished) == .success([]))

        let failed = PassthroughSubject<Int, TestError>()
        failed.fail(.other(9))
        failed.finish()
        #expect(await collect(failed) == .failure(.other(9)))
        #expect(failed.send(1) == .terminated)
    }

    @Test func releasingTheSubjectFinishesItsConsumers() async {
        var subject: PassthroughSubject<Int, Never>? = PassthroughSubject()
        let subscription = subject!.subscribe()
        subject!.send(1)
        subject = nil
        #expect(await collect(subscription) == [1])
    }

    @Test func cancellingAWaitingConsumerReturnsNilAndUnsubscribes() async {
        let subject = PassthroughSubject<Int, TestError>()
        let subscription = subject.subscribe()
        let consumer = Task { await collect(subscription) }
        await subject.waitForSuspendedConsumers(atLeast: 1)
        consumer.cancel()
        #expect(await consumer.value == .success([]), "cancellation ends with nil, it does not throw")
        #expect(subject.consumerCount == 0)
        #expect(subject.send(1) == .noConsumers)
    }

    @Test func iteratingFromAnAlreadyCancelledTaskReturnsNilAtOnce() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscription = subject.subscribe()
        subject.send(1)
        let values = await inCancelledTask {
            var iterator = subscription.makeAsyncIterator()
            let first = await iterator.next()
            let second = await iterator.next()
            return [first, second]
        }
        #expect(values == [nil, nil], "buffered elements are discarded on cancellation")
        #expect(subject.consumerCount == 0)
    }

    @Test func droppingAnIteratorUnsubscribes() async {
        let subject = PassthroughSubject<Int, Never>()
        do {
            var iterator = subject.makeAsyncIterator()
            subject.send(1)
            #expect(await iterator.next() == 1)
            #expect(subject.consumerCount == 1)
        }
        #expect(subject.consumerCount == 0)
        #expect(subject.send(2) == .noConsumers)
    }

    @Test func concurrentSendersFromManyThreadsLoseAndDuplicateNothing() async {
        let subject = PassthroughSubject<Int, Never>()
        let first = subject.subscribe()
        let second = subject.subscribe()
        let consumers = [first, second].map { subscription in
            Task { await collect(subscription) }
        }
        let senders = 8
        let perSender = 5_000
        DispatchQueue.concurrentPerform(iterations: senders) { sender in
            for index in 0..<perSender {
                subject.send(sender * perSender + index)
            }
        }
        subject.finish()
        for consumer in consumers {
            let received = await consumer.value
            #expect(received.count == senders * perSender)
            #expect(received.sorted() == Array(0..<senders * perSender), "no element lost or duplicated")
            for sender in 0..<senders {
                let fromSender = received.filter { $0 / perSender == sender }
                #expect(fromSender == fromSender.sorted(), "each sender's elements keep their order")
            }
        }
        #expect(subject.droppedCount == 0)
    }

    @Test func concurrentSendersCountEveryDrop() async {
        let subject = PassthroughSubject<Int, Never>(bufferingPolicy: .bufferingNewest(10))
        let subscription = subject.subscribe()
        let dropped = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for index in 0..<1_000 {
                if case .dropped(let count) = subject.send(index) {
                    dropped.add(count, ordering: .relaxed)
                }
            }
        }
        subject.finish()
        #expect(subject.droppedCount == 4_000 - 10)
        #expect(dropped.load(ordering: .relaxed) == subject.droppedCount)
        #expect(await collect(subscription).count == 10)
    }

    @Test @MainActor func consumesFromTheMainActor() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscription = subject.subscribe()
        Task.detached {
            for value in 1...3 { subject.send(value) }
            subject.finish()
        }
        var seen: [Int] = []
        for await value in subscription.map({ $0 * 2 }) {
            MainActor.assertIsolated()
            seen.append(value)
        }
        #expect(seen == [2, 4, 6])
    }
}
