import Streams
import Testing

@Suite struct CombineLatestTests {
    @Test func emitsNothingUntilEveryBaseProducedThenATuplePerElement() async {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let recorder = CombiningRecorder(a.combineLatest(b).map { [$0, $1] })
        await a.waitForSuspendedConsumers(atLeast: 1)
        await b.waitForSuspendedConsumers(atLeast: 1)
        a.send(1)
        await a.waitForSuspendedConsumers(atLeast: 1)
        a.send(2)
        await a.waitForSuspendedConsumers(atLeast: 1)
        #expect(recorder.events.isEmpty, "b has not produced yet")
        b.send(10)
        await recorder.waitForEvents(1)
        a.send(3)
        await recorder.waitForEvents(2)
        b.send(20)
        await recorder.waitForEvents(3)
        a.finish()
        b.send(30)
        await recorder.waitForEvents(4)
        #expect(recorder.events.count == 4, "a finished after producing: the stream goes on")
        b.finish()
        #expect(
            await recorder.completion() == [
                .value([2, 10]), .value([3, 10]), .value([3, 20]), .value([3, 30]), .finished,
            ]
        )
    }

    @Test func everyUpdateMakesItsOwnTupleEvenWhenTheConsumerIsSlow() async throws {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let (sa, sb) = (a.subscribe(), b.subscribe())
        for value in 1...3 { a.send(value) }
        b.send(10)
        a.finish()
        b.finish()
        var iterator = sa.combineLatest(sb).makeAsyncIterator()
        var tuples: [[Int]] = []
        while let (x, y) = await iterator.next() {
            tuples.append([x, y])
        }
        // Updates before b's first value only update the latest; then one
        // tuple per update, none skipped.
        #expect(tuples.last == [3, 10])
        #expect(tuples.count == Set(tuples.map { $0[0] }).count, "no duplicate tuples")
        #expect(await iterator.next() == nil, "after nil, nil again")
    }

    @Test func combinesThree() async {
        let result = await collect(
            ProbePublisher<Never>([1]).combineLatest(ProbePublisher([2]), ProbePublisher([3])).map { [$0, $1, $2] }
        )
        #expect(result == [[1, 2, 3]])
    }

    @Test func aBaseFinishingBeforeItsFirstElementFinishesAtOnceAndCancelsTheOthers() async {
        let lifecycle = CombiningLifecycle()
        let empty = PassthroughSubject<Int, Never>()
        let recorder = CombiningRecorder(
            lifecycle.never().combineLatest(empty.subscribe(), lifecycle.never()).map { [$0, $1, $2] }
        )
        await lifecycle.waitForStarts(2)
        empty.finish()
        #expect(await recorder.completion() == [.finished])
        await lifecycle.waitForCancellations(2)
    }

    @Test func emptyUpstreamFinishesAtOnce() async {
        #expect(await collect(ProbePublisher<Never>([]).combineLatest(ProbePublisher([1])).map { [$0, $1] }) == [])
    }

    @Test func upstreamFailureIsThrownAndCancelsTheOthers() async {
        let lifecycle = CombiningLifecycle()
        let failing = PassthroughSubject<Int, TestError>()
        let recorder = CombiningRecorder(
            lifecycle.never(failure: TestError.self).combineLatest(failing.subscribe()).map { [$0, $1] }
        )
        await lifecycle.waitForStarts(1)
        failing.fail(.upstream)
        #expect(await recorder.completion() == [.failed(.upstream)])
        await lifecycle.waitForCancellations(1)
    }

    @Test func cancellingTheConsumerCancelsTheBases() async {
        let lifecycle = CombiningLifecycle()
        let recorder = CombiningRecorder(lifecycle.never().combineLatest(lifecycle.never()).map { [$0, $1] })
        await lifecycle.waitForStarts(2)
        recorder.cancel()
        #expect(await recorder.completion() == [.finished])
        await lifecycle.waitForCancellations(2)
    }

    @Test func iteratingFromAnAlreadyCancelledTaskStartsNothing() async {
        let lifecycle = CombiningLifecycle()
        let combined = lifecycle.never().combineLatest(lifecycle.never())
        let ended = await inCancelledTask {
            var iterator = combined.makeAsyncIterator()
            let first = await iterator.next()
            let second = await iterator.next()
            return first == nil && second == nil
        }
        #expect(ended)
        #expect(lifecycle.startedCount == 0)
    }

    @Test func droppingTheIteratorEarlyCancelsTheBases() async {
        let lifecycle = CombiningLifecycle()
        do {
            var iterator = lifecycle.never([1]).combineLatest(lifecycle.never([2])).makeAsyncIterator()
            let first = await iterator.next()
            #expect(first.map { [$0, $1] } == [1, 2])
        }
        await lifecycle.waitForCancellations(2)
    }
}
