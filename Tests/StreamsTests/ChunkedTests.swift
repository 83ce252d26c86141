import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct ChunkedTests {
    let lifecycle = TimeLifecycle { input, clock in input.chunked(every: .seconds(3), clock: clock) }

    // MARK: chunked(count:)

    @Test func chunksOfCountEmitFullChunksAtTheirLastElementAndAPartialLastChunk() async {
        #expect(await collect(ProbePublisher<Never>([1, 2, 3, 4, 5]).chunked(count: 2)) == [[1, 2], [3, 4], [5]])
        #expect(await collect(ProbePublisher<Never>([]).chunked(count: 2)) == [])
    }

    @Test func chunksOfCountMarble() async {
        let result = await Marble.validate("abc-d|", expected: "-(ab)--(cd)|") { input, _ in
            input.chunked(count: 2).map { $0.joined() }
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func chunksOfCountDropAPartialChunkOnFailure() async throws {
        let result = await collect(ProbePublisher<TestError>([1, 2, 3], ending: .fail(.upstream)).chunked(count: 2))
        #expect(throws: TestError.upstream) { try result.get() }
        var iterator = ProbePublisher<TestError>([1, 2, 3], ending: .fail(.upstream)).chunked(count: 2)
            .makeAsyncIterator()
        #expect(try await iterator.next() == [1, 2])
        await #expect(throws: TestError.upstream) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test func chunksOfCountReleaseUpstreamWhenDroppedAndStopOnCancellation() async {
        let probe = Probe()
        do {
            var iterator = ProbePublisher<Never>([1, 2, 3], probe: probe).chunked(count: 2).makeAsyncIterator()
            #expect(await iterator.next() == [1, 2])
        }
        #expect(probe.iteratorsReleased == 1)
        let subject = PassthroughSubject<Int, Never>()
        let chunks = subject.subscribe().chunked(count: 2)
        let consumer = Task { await collect(chunks) }
        subject.send(1)
        await subject.waitForSuspendedConsumers(atLeast: 1)
        consumer.cancel()
        #expect(
            await consumer.value == [[1]], "a partial chunk is emitted when the upstream ends with nil on cancellation")
        #expect(subject.consumerCount == 0)
    }

    // MARK: chunked(every:)

    @Test func chunksByTimeOpenWithTheirFirstElement() async {
        let result = await Marble.validate("ab---c-d-", expected: "---(ab)----(cd)") { input, clock in
            input.chunked(every: .seconds(3), clock: clock).map { $0.joined() }
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func chunksByTimeEmitAPartialChunkAtTheFinishInstant() async {
        let result = await Marble.validate("ab|", expected: "--[(ab)|]") { input, clock in
            input.chunked(every: .seconds(3), clock: clock).map { $0.joined() }
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func chunksByTimeDropAPartialChunkOnFailure() async {
        let result = await Marble.validate("ab^", expected: "--^") { input, clock in
            input.chunked(every: .seconds(3), clock: clock).map { $0.joined() }
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func chunksByTimeOfAnEmptyUpstreamFinishAtOnce() async {
        let result = await Marble.validate("-|", expected: "-|") { input, clock in
            input.chunked(every: .seconds(3), clock: clock).map { $0.joined() }
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    // MARK: chunked(count:every:)

    @Test func countOrTimeWhicheverComesFirst() async {
        let result = await Marble.validate("abc----d|", expected: "-(ab)---c--[d|]") { input, clock in
            input.chunked(count: 2, every: .seconds(3), clock: clock).map { $0.joined() }
        }
        #expect(result.actual == result.expected, "\(result)")
    }

    @Test func cancellingTheConsumerStopsAllWork() async {
        await lifecycle.cancellingTheConsumerStopsAllWork()
    }

    @Test func startingFromAnAlreadyCancelledTaskReturnsNil() async {
        await lifecycle.alreadyCancelledTaskReturnsNil()
    }

    @Test func droppingTheIteratorEarlyStopsAllWork() async {
        await lifecycle.droppingTheIteratorEarlyStopsAllWork(advance: .seconds(3))
    }

    @Test func callsAfterTheEndReturnNil() async throws {
        try await lifecycle.callsAfterTheEndReturnNil()
    }
}
