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
        let (a, b, recorder) = await Self.zippedSubjects()
        a.send(1)
        a.send(2)  // read ahead by a's producer; waits for b's second element
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

    /// Two subjects zipped into pairs, recorded, once both bases wait for their first element.
    private static func zippedSubjects() async -> (
        PassthroughSubject<Int, TestError>, PassthroughSubject<Int, TestError>, CombiningRecorder<[Int], TestError>
    ) {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let recorder = CombiningRecorder(a.zip(b).map { [$0, $1] })
        await a.waitForSuspendedConsumers(atLeast: 1)
        await b.waitForSuspendedConsumers(atLeast: 1)
        return (a, b, recorder)
    }

    /// The most values a base queues before it waits (its producer then holds one more).
    static let capacity = 32

    @Test func aBaseRunsAheadOfTheConsumerByAtMostItsCapacity() async {
        let probe = Probe()
        let zipped = ProbePublisher<Never>(Array(0..<200), probe: probe).zip(ProbePublisher(Array(0..<200)))
        var iterator = zipped.makeAsyncIterator()
        var taken: [[Int]] = []
        while let (first, second) = await iterator.next() {
            taken.append([first, second])
            if taken.count == 1 {
                // The bases run ahead of the idle consumer until their queues are full.
                let deadline = ContinuousClock.now + .seconds(30)
                while probe.nextCalls < 1 + Self.capacity, ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(1))
                }
                #expect(probe.nextCalls >= 1 + Self.capacity, "one taken, at least \(Self.capacity) queued")
            }
            #expect(
                probe.nextCalls <= taken.count + Self.capacity + 1,
                "at most \(Self.capacity + 1) values pulled and not used (after \(taken.count))")
        }
        #expect(taken == (0..<200).map { [$0, $0] })
        #expect(probe.nextCalls <= 201, "every element, then at most the end, pulled once")
    }

    @Test func aFinishedBaseWithQueuedValuesEndsTheZipOnceTheyAreUsed() async {
        // The short base finishes while its values wait for the long one (or the other way round);
        // every tuple is emitted either way, then the end.
        for round in 0..<100 {
            let short = ProbePublisher<Never>(Array(0..<40))
            let long = ProbePublisher<Never>(Array(0..<1000))
            let zipped = round.isMultiple(of: 2) ? short.zip(long).map { [$0, $1] } : long.zip(short).map { [$1, $0] }
            #expect(await collect(zipped) == (0..<40).map { [$0, $0] }, "round \(round)")
        }
    }

    @Test func aFailureIsThrownAfterTheFailingBasesValuesWerePaired() async {
        // The failing base delivers 40 values and fails, maybe before the consumer used any:
        // the 40 tuples come first, then the error; the other base's extra values are dropped.
        for round in 0..<100 {
            let failing = ProbePublisher<TestError>(Array(0..<40), ending: .fail(.upstream))
            let other = ProbePublisher<TestError>(Array(0..<1000))
            let zipped =
                round.isMultiple(of: 2) ? failing.zip(other).map { [$0, $1] } : other.zip(failing).map { [$1, $0] }
            var iterator = zipped.makeAsyncIterator()
            var values: [[Int]] = []
            do {
                while let value = try await iterator.next() { values.append(value) }
                Issue.record("no failure in round \(round)")
            } catch {
                #expect(error == .upstream)
            }
            #expect(values == (0..<40).map { [$0, $0] }, "round \(round)")
        }
    }

    @Test func aFailingBasesQueuedValuesArePairedBeforeItsErrorIsThrown() async {
        let (a, b, recorder) = await Self.zippedSubjects()
        a.send(1)
        a.send(2)
        a.fail(.upstream)
        b.send(10)
        await recorder.waitForEvents(1)
        // As if a were pulled again only once 1 was used: its failure waits behind 2.
        await b.waitForSuspendedConsumers(atLeast: 1)
        #expect(recorder.events == [.value([1, 10])])
        b.send(20)
        #expect(await recorder.completion() == [.value([1, 10]), .value([2, 20]), .failed(.upstream)])
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
