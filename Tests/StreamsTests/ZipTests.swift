import Streams
import Testing

@Suite struct ZipTests {
    @Test func pairsElementsInOrderAndFinishesWithTheShortestBase() async {
        let zipped = ProbePublisher<Never>([1, 2, 3]).zip(ProbePublisher([10, 20])).map { [$0, $1] }
        #expect(await collect(zipped) == [[1, 10], [2, 20]])
    }

    @Test func zipsThree() async {
        let zipped = ProbePublisher<Never>([1, 2]).zip(ProbePublisher([10, 20]), ProbePublisher([100, 200, 300]))
            .map { [$0, $1, $2] }
        #expect(await collect(zipped) == [[1, 10, 100], [2, 20, 200]])
    }

    @Test func waitsForEveryBaseAtEachStep() async {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let recorder = CombiningRecorder(a.zip(b).map { [$0, $1] })
        await a.waitForSuspendedConsumers(atLeast: 1)
        await b.waitForSuspendedConsumers(atLeast: 1)
        a.send(1)
        a.send(2)  // buffered in a: a's producer is one element ahead at most
        b.send(10)
        await recorder.waitForEvents(1)
        await b.waitForSuspendedConsumers(atLeast: 1)
        b.send(20)
        await recorder.waitForEvents(2)
        #expect(recorder.events == [.value([1, 10]), .value([2, 20])])
        await b.waitForSuspendedConsumers(atLeast: 1)
        b.finish()
        #expect(await recorder.completion() == [.value([1, 10]), .value([2, 20]), .finished])
    }

    @Test func aFinishingBaseFinishesAtOnceAndCancelsTheOthers() async {
        let lifecycle = CombiningLifecycle()
        let zipped = lifecycle.never().zip(ProbePublisher<Never>([]), lifecycle.never()).map { [$0, $1, $2] }
        #expect(await collect(zipped) == [])
        await lifecycle.waitForCancellations(2)
    }

    @Test func upstreamFailureIsThrownAtOnceAndCancelsTheOthers() async {
        let lifecycle = CombiningLifecycle()
        let zipped = lifecycle.never(failure: TestError.self).zip(ProbePublisher([], ending: .fail(.upstream)))
            .map { [$0, $1] }
        #expect(await collect(zipped) == .failure(.upstream))
        await lifecycle.waitForCancellations(1)
    }

    @Test func cancellingTheConsumerCancelsTheBases() async {
        let lifecycle = CombiningLifecycle()
        let recorder = CombiningRecorder(lifecycle.never().zip(lifecycle.never()).map { [$0, $1] })
        await lifecycle.waitForStarts(2)
        recorder.cancel()
        #expect(await recorder.completion() == [.finished])
        await lifecycle.waitForCancellations(2)
    }

    @Test func iteratingFromAnAlreadyCancelledTaskStartsNothing() async {
        let lifecycle = CombiningLifecycle()
        let zipped = lifecycle.never().zip(lifecycle.never())
        let ended = await inCancelledTask {
            var iterator = zipped.makeAsyncIterator()
            let first = await iterator.next()
            let second = await iterator.next()
            return first == nil && second == nil
        }
        #expect(ended)
        #expect(lifecycle.startedCount == 0)
    }

    @Test func droppingTheIteratorEarlyCancelsTheBasesAndNilRepeats() async {
        let lifecycle = CombiningLifecycle()
        do {
            var iterator = lifecycle.never([1]).zip(lifecycle.never([10])).makeAsyncIterator()
            let first = await iterator.next()
            #expect(first.map { [$0, $1] } == [1, 10])
        }
        await lifecycle.waitForCancellations(2)

        var finished = ProbePublisher<Never>([1]).zip(ProbePublisher([2])).makeAsyncIterator()
        #expect(await finished.next() != nil)
        #expect(await finished.next() == nil)
        #expect(await finished.next() == nil)
    }
}
