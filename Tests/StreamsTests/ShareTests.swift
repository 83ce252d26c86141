import Streams
import Testing

@Suite struct ShareTests {
    @Test func everyConsumerGetsEveryElementOfOneUpstreamIteration() async {
        let probe = Probe()
        let shared = ProbePublisher<Never>(Array(1...50), probe: probe).share()
        let consumers = (0..<3).map { _ in combiningDrain(shared.makeAsyncIterator()) }
        for consumer in consumers {
            #expect(await consumer.value.get() == Array(1...50))
        }
        #expect(probe.iteratorsMade == 1)
        #expect(shared.droppedCount == 0)
    }

    @Test func theSlowestConsumerPacesTheUpstreamAndNothingIsLost() async {
        let upstream = PassthroughSubject<Int, Never>()
        let shared = upstream.subscribe().share(bufferingPolicy: .bounded(2))
        var slow = shared.makeAsyncIterator()
        let fast = CombiningRecorder(shared)
        for value in 1...10 { upstream.send(value) }
        upstream.finish()
        await fast.waitForEvents(2)
        #expect(fast.events.count == 2, "the slow consumer's buffer is full: the upstream waits")
        var slowValues: [Int] = []
        while let value = await slow.next() { slowValues.append(value) }
        #expect(slowValues == Array(1...10))
        #expect(await fast.completion() == (1...10).map { .value($0) } + [.finished])
        #expect(slow.droppedCount == 0)
    }

    @Test func bufferingNewestDropsTheOldestAndCountsPerConsumer() async {
        let upstream = PassthroughSubject<Int, Never>()
        let shared = upstream.subscribe().share(bufferingPolicy: .bufferingNewest(2))
        var slow = shared.makeAsyncIterator()
        let fast = CombiningRecorder(shared)
        for value in 1...10 { upstream.send(value) }
        upstream.finish()
        let fastEvents = await fast.completion()
        #expect(fastEvents.last == .finished)
        var slowValues: [Int] = []
        while let value = await slow.next() { slowValues.append(value) }
        #expect(slowValues == [9, 10])
        #expect(slow.droppedCount == 8)
        #expect(shared.droppedCount == 8 + (10 - (fastEvents.count - 1)))
    }

    @Test func bufferingOldestDropsNewElementsAndCountsPerConsumer() async {
        let upstream = PassthroughSubject<Int, Never>()
        let shared = upstream.subscribe().share(bufferingPolicy: .bufferingOldest(2))
        var slow = shared.makeAsyncIterator()
        let fast = CombiningRecorder(shared)
        for value in 1...10 { upstream.send(value) }
        upstream.finish()
        #expect(await fast.completion().last == .finished)
        var slowValues: [Int] = []
        while let value = await slow.next() { slowValues.append(value) }
        #expect(slowValues == [1, 2])
        #expect(slow.droppedCount == 8)
    }

    @Test func failureReachesEveryConsumerAfterItsBuffer() async throws {
        let shared = ProbePublisher<TestError>([1, 2], ending: .fail(.upstream)).share(bufferingPolicy: .bounded(5))
        let consumers = (0..<2).map { _ in combiningDrain(shared.makeAsyncIterator()) }
        for consumer in consumers {
            #expect(await consumer.value == .failure(.upstream))
        }
        var late = shared.makeAsyncIterator()
        #expect(try await late.next() == 1, "a later consumer starts a new iteration")
    }

    @Test func emptyUpstreamFinishesEveryConsumer() async {
        let shared = ProbePublisher<Never>([]).share()
        #expect(await collect(shared) == [])
        #expect(await collect(shared) == [])
    }

    @Test func theLastConsumerLeavingCancelsTheUpstreamAndALaterOneStartsAnew() async {
        let lifecycle = CombiningLifecycle()
        let shared = lifecycle.never([1]).share()
        do {
            var first = shared.makeAsyncIterator()
            var second = shared.makeAsyncIterator()
            #expect(await first.next() == 1)
            #expect(await second.next() == 1)
            await lifecycle.waitForStarts(1)
        }
        await lifecycle.waitForCancellations(1)
        var later = shared.makeAsyncIterator()
        #expect(await later.next() == 1, "a new upstream iteration")
        await lifecycle.waitForStarts(2)
    }

    @Test func cancellingOneConsumerLeavesTheOthers() async {
        let upstream = PassthroughSubject<Int, Never>()
        let shared = upstream.subscribe().share()
        let staying = CombiningRecorder(shared)
        let leaving = CombiningRecorder(shared)
        await upstream.waitForSuspendedConsumers(atLeast: 1)
        upstream.send(1)
        await staying.waitForEvents(1)
        await leaving.waitForEvents(1)
        leaving.cancel()
        #expect(await leaving.completion() == [.value(1), .finished], "cancellation ends with nil")
        upstream.send(2)
        upstream.finish()
        #expect(await staying.completion() == [.value(1), .value(2), .finished])
    }

    @Test func cancellingTheOnlyConsumerCancelsTheUpstream() async {
        let lifecycle = CombiningLifecycle()
        let recorder = CombiningRecorder(lifecycle.never().share())
        await lifecycle.waitForStarts(1)
        recorder.cancel()
        #expect(await recorder.completion() == [.finished])
        await lifecycle.waitForCancellations(1)
    }

    @Test func iteratingFromAnAlreadyCancelledTaskStartsNothing() async {
        let lifecycle = CombiningLifecycle()
        let shared = lifecycle.never().share()
        let values = await inCancelledTask {
            var iterator = shared.makeAsyncIterator()
            return [await iterator.next(), await iterator.next()]
        }
        #expect(values == [nil, nil])
        #expect(lifecycle.startedCount == 0)
    }

    @Test func afterNilNextKeepsReturningNil() async {
        var iterator = ProbePublisher<Never>([1]).share().makeAsyncIterator()
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil)
    }

    @Test @MainActor func consumesFromTheMainActor() async {
        var seen: [Int] = []
        for await value in ProbePublisher<Never>([1, 2, 3]).share().map({ $0 * 2 }) {
            MainActor.assertIsolated()
            seen.append(value)
        }
        #expect(seen == [2, 4, 6])
    }
}
