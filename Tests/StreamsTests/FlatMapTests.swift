import Streams
import Testing

@Suite struct FlatMapTests {
    @Test func mergesEveryInnerWithoutALimit() async {
        let values = await collect(
            ProbePublisher<Never>([1, 2, 3]).flatMap { ProbePublisher([$0 * 10, $0 * 10 + 1]) })
        #expect(values.sorted() == [10, 11, 20, 21, 30, 31])
        for base in [10, 20, 30] {
            #expect(values.filter { $0 / 10 * 10 == base } == [base, base + 1], "each inner keeps its order")
        }
    }

    @Test func maxConcurrencyOneConcatenates() async {
        let values = await collect(
            ProbePublisher<Never>([0, 1, 2]).flatMap(maxConcurrency: 1) {
                ProbePublisher([$0 * 10, $0 * 10 + 1, $0 * 10 + 2])
            }
        )
        #expect(values == [0, 1, 2, 10, 11, 12, 20, 21, 22])
    }

    @Test func extraOuterElementsWaitAndNothingIsDropped() async {
        let outer = PassthroughSubject<Int, Never>()
        let inners = (0..<3).map { _ in ReplaySubject<Int, Never>(count: 10) }
        let recorder = CombiningRecorder(outer.subscribe().flatMap(maxConcurrency: 1) { inners[$0] })
        outer.send(0)
        outer.send(1)
        outer.send(2)
        outer.finish()
        inners[2].send(20)
        inners[2].finish()
        inners[1].send(10)
        inners[1].finish()
        await inners[0].waitForSuspendedConsumers(atLeast: 1)
        #expect(recorder.events.isEmpty, "inners 1 and 2 wait for inner 0")
        inners[0].send(0)
        inners[0].finish()
        #expect(await recorder.completion() == [.value(0), .value(10), .value(20), .finished])
    }

    @Test func finishesOnlyWhenTheOuterAndEveryInnerFinished() async {
        let outer = PassthroughSubject<Int, Never>()
        let inner = PassthroughSubject<Int, Never>()
        let recorder = CombiningRecorder(outer.flatMap { _ in inner })
        await outer.waitForSuspendedConsumers(atLeast: 1)
        outer.send(0)
        await inner.waitForSuspendedConsumers(atLeast: 1)
        outer.finish()
        inner.send(5)
        await recorder.waitForEvents(1)
        inner.send(6)
        await recorder.waitForEvents(2)
        #expect(recorder.events == [.value(5), .value(6)], "the outer finished, the inner still runs")
        inner.finish()
        #expect(await recorder.completion() == [.value(5), .value(6), .finished])
    }

    @Test func emptyOuterFinishesAtOnce() async {
        #expect(await collect(ProbePublisher<Never>([]).flatMap { ProbePublisher([$0]) }) == [])
    }

    @Test func anInnerFailureComesAfterTheElementsAlreadyReceived() async throws {
        let inners = [ReplaySubject<Int, TestError>(count: 10), ReplaySubject<Int, TestError>(count: 10)]
        var iterator = ProbePublisher<TestError>([0, 1]).flatMap { inners[$0] }.makeAsyncIterator()
        inners[0].send(1)
        #expect(try await iterator.next() == 1)
        inners[0].send(2)
        await iterator.waitForBufferedElements(atLeast: 1)
        inners[1].fail(.other(1))
        #expect(try await iterator.next() == 2)
        await #expect(throws: TestError.other(1)) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test func anOuterFailureCancelsTheInners() async {
        let lifecycle = CombiningLifecycle()
        let outer = PassthroughSubject<Int, TestError>()
        let recorder = CombiningRecorder(outer.flatMap { _ in lifecycle.never(failure: TestError.self) })
        await outer.waitForSuspendedConsumers(atLeast: 1)
        outer.send(0)
        outer.send(1)
        await lifecycle.waitForStarts(2)
        outer.fail(.upstream)
        #expect(await recorder.completion() == [.failed(.upstream)])
        await lifecycle.waitForCancellations(2)
    }

    @Test func aThrowingTransformEndsTheStream() async {
        let flattened = ProbePublisher<TestError>([1, 2]).flatMap { value throws(TestError) in
            if value == 2 { throw .transform }
            return CombiningNeverPublisher<Int, TestError>()
        }
        #expect(await collect(flattened) == .failure(.transform))
    }

    @Test func cancellingTheConsumerCancelsTheOuterAndTheInners() async {
        let lifecycle = CombiningLifecycle()
        let recorder = CombiningRecorder(
            lifecycle.never([0, 1]).flatMap { _ in lifecycle.never() }
        )
        await lifecycle.waitForStarts(3)
        recorder.cancel()
        #expect(await recorder.completion() == [.finished])
        await lifecycle.waitForCancellations(3)
    }

    @Test func iteratingFromAnAlreadyCancelledTaskStartsNothing() async {
        let lifecycle = CombiningLifecycle()
        let flattened = lifecycle.never().flatMap { _ in lifecycle.never() }
        let values = await inCancelledTask {
            var iterator = flattened.makeAsyncIterator()
            return [await iterator.next(), await iterator.next()]
        }
        #expect(values == [nil, nil])
        #expect(lifecycle.startedCount == 0)
    }

    @Test func droppingTheIteratorEarlyCancelsEverything() async {
        let lifecycle = CombiningLifecycle()
        do {
            var iterator = lifecycle.never([7]).flatMap { lifecycle.never([$0]) }.makeAsyncIterator()
            #expect(await iterator.next() == 7)
            await lifecycle.waitForStarts(2)
        }
        await lifecycle.waitForCancellations(2)
    }

    @Test @MainActor func consumesFromTheMainActor() async {
        var seen: [Int] = []
        for await value in ProbePublisher<Never>([1, 2]).flatMap(maxConcurrency: 1, { ProbePublisher([$0, $0 * 10]) }) {
            MainActor.assertIsolated()
            seen.append(value)
        }
        #expect(seen == [1, 10, 2, 20])
    }
}
