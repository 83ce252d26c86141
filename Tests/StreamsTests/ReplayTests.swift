import Streams
import Testing

@Suite struct ReplayTests {
    @Test func aLateConsumerGetsTheLatestElementsThenTheLiveOnes() async {
        let upstream = PassthroughSubject<Int, Never>()
        let replayed = upstream.subscribe().replay(2)
        let early = CombiningRecorder(replayed)
        await upstream.waitForSuspendedConsumers(atLeast: 1)
        for value in 1...3 {
            upstream.send(value)
            await early.waitForEvents(value)
        }
        var late = replayed.makeAsyncIterator()
        #expect(await late.next() == 2)
        #expect(await late.next() == 3)
        upstream.send(4)
        #expect(await late.next() == 4, "no gap and no duplicate between replay and live")
        upstream.finish()
        #expect(await late.next() == nil)
        #expect(await early.completion() == [.value(1), .value(2), .value(3), .value(4), .finished])
    }

    @Test func afterTheUpstreamFinishedAConsumerGetsTheReplayThenTheFinish() async {
        let probe = Probe()
        let replayed = ProbePublisher<Never>([1, 2, 3], probe: probe).replay(2)
        #expect(await collect(replayed) == [1, 2, 3])
        #expect(await collect(replayed) == [2, 3])
        #expect(await collect(replayed) == [2, 3])
        #expect(probe.iteratorsMade == 1, "the upstream is not started again")
    }

    @Test func afterAFailureAConsumerGetsTheReplayThenTheFailure() async throws {
        let probe = Probe()
        let replayed = ProbePublisher<TestError>([1, 2, 3], ending: .fail(.upstream), probe: probe).replay(2)
        #expect(await collect(replayed) == .failure(.upstream))
        var late = replayed.makeAsyncIterator()
        #expect(try await late.next() == 2)
        #expect(try await late.next() == 3)
        await #expect(throws: TestError.upstream) { try await late.next() }
        #expect(try await late.next() == nil)
        #expect(probe.iteratorsMade == 1)
    }

    @Test func replayZeroKeepsNothing() async {
        let probe = Probe()
        let replayed = ProbePublisher<Never>([1, 2], probe: probe).replay(0)
        #expect(await collect(replayed) == [1, 2])
        #expect(await collect(replayed) == [])
        #expect(probe.iteratorsMade == 1)
    }

    @Test func emptyUpstreamReplaysOnlyTheFinish() async {
        let replayed = ProbePublisher<Never>([]).replay(3)
        #expect(await collect(replayed) == [])
        #expect(await collect(replayed) == [])
    }

    @Test func cancellingTheOnlyConsumerCancelsTheUpstreamAndDiscardsTheReplay() async {
        let lifecycle = CombiningLifecycle()
        let replayed = lifecycle.never([1]).replay(1)
        do {
            var iterator = replayed.makeAsyncIterator()
            #expect(await iterator.next() == 1)
            await lifecycle.waitForStarts(1)
        }
        await lifecycle.waitForCancellations(1)
        var later = replayed.makeAsyncIterator()
        #expect(await later.next() == 1, "a new iteration, not a replay of the old one")
        await lifecycle.waitForStarts(2)
    }

    @Test func iteratingFromAnAlreadyCancelledTaskStartsNothing() async {
        let lifecycle = CombiningLifecycle()
        let replayed = lifecycle.never().replay(1)
        let values = await inCancelledTask {
            var iterator = replayed.makeAsyncIterator()
            return [await iterator.next(), await iterator.next()]
        }
        #expect(values == [nil, nil])
        #expect(lifecycle.startedCount == 0)
    }
}
