import Streams
import Testing

/// The batched hand-over of merge, flatMap and combineLatest: a base with
/// elements ready queues up to 32 of them without waiting, never more (a
/// merge's consumer may hold as many again, taken in one step), and every
/// element still arrives, in order per base.
@Suite struct BatchingTests {
    /// The most elements (updates) a base queues before it waits.
    static let capacity = 32

    @Test func aSlowMergeConsumerBoundsWhatABasePullsAhead() async {
        let probe = Probe()
        let merged = ProbePublisher<Never>(Array(0..<200), probe: probe).merge(ProbePublisher([]))
        var iterator = merged.makeAsyncIterator()
        var taken: [Int] = []
        while let value = await iterator.next() {
            taken.append(value)
            if taken.count == 1 {
                // The base runs ahead of the idle consumer until its share is full.
                await iterator.waitForBufferedElements(atLeast: Self.capacity - 1)
                #expect(probe.nextCalls >= Self.capacity)
            }
            // Up to 32 buffered, and as many again in the consumer's batch
            // (taken out of the buffer in one step, handed out one by one).
            #expect(
                probe.nextCalls <= taken.count + 2 * Self.capacity,
                "at most \(2 * Self.capacity) elements pulled and not handed out (after \(taken.count))")
        }
        #expect(taken == Array(0..<200))
        #expect(probe.nextCalls == 201, "every element, then the end, pulled once")
    }

    @Test func mergedSynchronousBasesKeepTheirOrderAndLoseNothing() async {
        let merged = merge((0..<4).map { base in ProbePublisher<Never>(Array(0..<500).map { base * 1000 + $0 }) })
        let values = await collect(merged)
        #expect(values.count == 2000)
        for base in 0..<4 {
            #expect(values.filter { $0 / 1000 == base } == Array(0..<500).map { base * 1000 + $0 })
        }
    }

    @Test func aFailureAfterABatchDeliversTheBatchFirst() async {
        var iterator = ProbePublisher<TestError>(Array(0..<100), ending: .fail(.upstream))
            .merge(ProbePublisher([])).makeAsyncIterator()
        var values: [Int] = []
        do {
            while let value = try await iterator.next() { values.append(value) }
            Issue.record("no failure")
        } catch {
            #expect(error == .upstream)
        }
        #expect(values == Array(0..<100), "every element received before the failure is delivered first")
    }

    @Test func flatMapDeliversEveryInnerElementInOrderPerInner() async {
        let flattened = ProbePublisher<Never>(Array(0..<10)).flatMap { outer in
            ProbePublisher<Never>(Array(0..<100).map { outer * 1000 + $0 })
        }
        let values = await collect(flattened)
        #expect(values.count == 1000)
        for outer in 0..<10 {
            #expect(values.filter { $0 / 1000 == outer } == Array(0..<100).map { outer * 1000 + $0 })
        }
    }

    @Test func combineLatestMakesATuplePerUpdateOfAFastBaseAndBoundsItsLead() async {
        let probe = Probe()
        let fixed = PassthroughSubject<Int, Never>()
        let combined = ProbePublisher<Never>(Array(0..<200), probe: probe).combineLatest(fixed.subscribe())
        var iterator = combined.makeAsyncIterator()
        fixed.send(7)
        fixed.finish()
        var firsts: [Int] = []
        while let (first, second) = await iterator.next() {
            #expect(second == 7)
            firsts.append(first)
            #expect(
                probe.nextCalls <= first + 3 + Self.capacity,
                "beyond the last tuple (\(first)): at most \(Self.capacity) updates queued, one waiting, the end")
        }
        #expect(firsts.last == 199)
        #expect(firsts == Array(firsts[0]...199), "after the first tuple, one tuple per update, in order")
    }
}
