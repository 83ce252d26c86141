import Streams
import Testing

@Suite struct FlatMapLatestTests {
    @Test func followsTheLatestInner() async {
        let outer = PassthroughSubject<Int, Never>()
        let inners = (0..<2).map { _ in PassthroughSubject<Int, Never>() }
        let recorder = CombiningRecorder(outer.flatMapLatest { inners[$0] })
        await outer.waitForSuspendedConsumers(atLeast: 1)
        outer.send(0)
        await inners[0].waitForSuspendedConsumers(atLeast: 1)
        inners[0].send(1)
        await recorder.waitForEvents(1)
        outer.send(1)
        await inners[1].waitForSuspendedConsumers(atLeast: 1)
        inners[0].send(99)  // superseded: never emitted
        inners[1].send(2)
        await recorder.waitForEvents(2)
        outer.finish()
        inners[1].send(3)
        await recorder.waitForEvents(3)
        inners[1].finish()
        #expect(await recorder.completion() == [.value(1), .value(2), .value(3), .finished])
    }

    @Test func anElementBufferedFromASupersededInnerIsNeverEmitted() async {
        let outer = PassthroughSubject<Int, Never>()
        let inners = [ReplaySubject<Int, Never>(count: 10), ReplaySubject<Int, Never>(count: 10)]
        var iterator = outer.subscribe().flatMapLatest { inners[$0] }.makeAsyncIterator()
        inners[0].send(1)
        inners[0].send(2)
        outer.send(0)
        #expect(await iterator.next() == 1)
        await iterator.waitForBufferedElements(atLeast: 1)  // 2 waits for the consumer
        outer.send(1)
        await inners[1].waitForSuspendedConsumers(atLeast: 1)  // the switch happened
        inners[1].send(10)
        #expect(await iterator.next() == 10, "2 belonged to the superseded inner")
        outer.finish()
        inners[1].finish()
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil)
    }

    @Test func aSupersededInnersFailureIsIgnored() async {
        let outer = PassthroughSubject<Int, TestError>()
        var cancelledThrows = CombiningNeverPublisher<Int, TestError>()
        cancelledThrows.failureOnCancel = .other(0)
        let failing = cancelledThrows
        let latest = PassthroughSubject<Int, TestError>()
        let recorder = CombiningRecorder(
            outer.flatMapLatest { $0 == 0 ? CombiningEitherInner(failing) : CombiningEitherInner(latest) })
        await outer.waitForSuspendedConsumers(atLeast: 1)
        outer.send(0)
        outer.send(1)
        await latest.waitForSuspendedConsumers(atLeast: 1)
        latest.send(5)
        await recorder.waitForEvents(1)
        outer.finish()
        latest.finish()
        #expect(await recorder.completion() == [.value(5), .finished])
    }

    @Test func theLatestInnersFailureIsThrownAndCancelsTheOuter() async {
        let lifecycle = CombiningLifecycle()
        let recorder = CombiningRecorder(
            lifecycle.never([0], failure: TestError.self).flatMapLatest { _ in
                ProbePublisher<TestError>([1], ending: .fail(.upstream))
            }
        )
        #expect(await recorder.completion() == [.value(1), .failed(.upstream)])
        await lifecycle.waitForCancellations(1)
    }

    @Test func anOuterFailureCancelsTheInner() async {
        let lifecycle = CombiningLifecycle()
        let outer = PassthroughSubject<Int, TestError>()
        let recorder = CombiningRecorder(outer.flatMapLatest { _ in lifecycle.never(failure: TestError.self) })
        await outer.waitForSuspendedConsumers(atLeast: 1)
        outer.send(0)
        await lifecycle.waitForStarts(1)
        outer.fail(.upstream)
        #expect(await recorder.completion() == [.failed(.upstream)])
        await lifecycle.waitForCancellations(1)
    }

    @Test func emptyOuterFinishesAtOnce() async {
        #expect(await collect(ProbePublisher<Never>([]).flatMapLatest { ProbePublisher([$0]) }) == [])
    }

    @Test func cancellingTheConsumerCancelsTheOuterAndTheInner() async {
        let lifecycle = CombiningLifecycle()
        let recorder = CombiningRecorder(lifecycle.never([0]).flatMapLatest { _ in lifecycle.never() })
        await lifecycle.waitForStarts(2)
        recorder.cancel()
        #expect(await recorder.completion() == [.finished])
        await lifecycle.waitForCancellations(2)
    }

    @Test func iteratingFromAnAlreadyCancelledTaskStartsNothing() async {
        let lifecycle = CombiningLifecycle()
        let switched = lifecycle.never().flatMapLatest { _ in lifecycle.never() }
        let values = await inCancelledTask {
            var iterator = switched.makeAsyncIterator()
            return [await iterator.next(), await iterator.next()]
        }
        #expect(values == [nil, nil])
        #expect(lifecycle.startedCount == 0)
    }

    @Test func droppingTheIteratorEarlyCancelsEverything() async {
        let lifecycle = CombiningLifecycle()
        do {
            var iterator = lifecycle.never([7]).flatMapLatest { lifecycle.never([$0]) }.makeAsyncIterator()
            #expect(await iterator.next() == 7)
            await lifecycle.waitForStarts(2)
        }
        await lifecycle.waitForCancellations(2)
    }
}

/// Either of two inner publishers, so one transform can return both.
struct CombiningEitherInner: Publisher, Sendable {
    typealias Element = Int
    typealias Failure = TestError

    private let never: CombiningNeverPublisher<Int, TestError>?
    private let subject: PassthroughSubject<Int, TestError>?

    init(_ never: CombiningNeverPublisher<Int, TestError>) {
        self.never = never
        self.subject = nil
    }

    init(_ subject: PassthroughSubject<Int, TestError>) {
        self.never = nil
        self.subject = subject
    }

    func makeAsyncIterator() -> Iterator {
        if let never {
            return Iterator(never: never.makeAsyncIterator(), subject: nil)
        }
        return Iterator(never: nil, subject: subject!.makeAsyncIterator())
    }

    struct Iterator: AsyncIteratorProtocol {
        var never: CombiningNeverPublisher<Int, TestError>.Iterator?
        var subject: SubjectIterator<Int, TestError>?

        mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(TestError) -> Int? {
            if never != nil {
                return try await never!.next(isolation: actor)
            }
            return try await subject!.next(isolation: actor)
        }

        mutating func next() async throws(TestError) -> Int? {
            try await next(isolation: nil)
        }
    }
}
