import Locking
import TestSupport
import Testing

@testable import Streams

/// The merge's consumer-side batch: a consumer that finds elements buffered
/// takes them in one step, in arrival order, counting each as taken; a step
/// resumes at most one parked producer; the flat-map-latest never batches.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct MergeBatchTests {
    typealias Machine = MergeStateMachine<Int, Never>

    @Test func theConsumerTakesTheWholeBufferInArrivalOrder() {
        var machine = Machine()
        _ = machine.start(producers: 2, open: false)
        for (producer, element) in [(0, 10), (1, 20), (0, 11), (1, 21), (0, 12)] {
            _ = machine.deliver(producer, element)
        }
        var batch = Queue<Int>()
        guard case .resume(.success(10), producer: nil)? = machine.next(nil, batch: &batch) else {
            Issue.record("the first element, resuming no producer")
            return
        }
        #expect(Self.drain(&batch) == [20, 11, 21, 12])
        #expect(machine.next(nil) == nil, "the buffer is empty: nothing ready")
        #expect(machine.live[0]?.buffered == 0, "every element taken counts as taken")
        #expect(machine.live[1]?.buffered == 0)
    }

    @Test func aStepResumesAtMostOneParkedProducer() async {
        let shared = Shared()
        shared.machine.withLock { _ = $0.start(producers: 2, open: false) }
        // Two full shares, interleaved: a0 b0 a1 b1 … a31 b31.
        for index in 0..<Machine.capacity {
            for producer in 0..<2 {
                _ = shared.machine.withLock { $0.deliver(producer, producer * 100 + index) }
            }
        }
        let first = await Self.parked(0, shared)
        let second = await Self.parked(1, shared)
        // A producer still parked at the end (a lost resume) is stopped
        // (resumed with `false`), rather than hang the test.
        defer { Self.stop(shared) }

        // Producer 0 is back to half its share at a15; the step ends before
        // b15, whose taking would resume producer 1 as well.
        var batch = Queue<Int>()
        let step = shared.machine.withLock { $0.next(nil, batch: &batch) }
        guard case .resume(.success(0), producer: let resumed?)? = step else {
            Issue.record("the first element, and a producer to resume")
            return
        }
        let taken = [0] + Self.drain(&batch)
        let expected = (0..<15).flatMap { [$0, 100 + $0] } + [15]
        #expect(taken == expected)
        #expect(shared.machine.withLock { $0.live[0]?.parked } == nil, "producer 0 is the one resumed")
        #expect(shared.machine.withLock { $0.live[1]?.parked } != nil, "producer 1 still waits")
        resumed.resume(returning: true)

        // The next step resumes producer 1 and takes the rest.
        let next = shared.machine.withLock { $0.next(nil, batch: &batch) }
        guard case .resume(.success(115), producer: let other?)? = next else {
            Issue.record("b15, and producer 1 to resume")
            return
        }
        #expect(Self.drain(&batch) == (16..<32).flatMap { [$0, 100 + $0] })
        other.resume(returning: true)
        Self.stop(shared)
        #expect(await first.value, "resumed to go on, not stopped")
        #expect(await second.value, "resumed to go on, not stopped")
    }

    @Test func flatMapLatestTakesOneElementPerStep() {
        var machine = FlatMapLatestStateMachine<Int, Never>()
        _ = machine.start()
        guard case .start(let producer, _, _) = machine.switchToNewInner() else {
            Issue.record("an inner to start")
            return
        }
        for element in 0..<3 {
            _ = machine.deliver(producer, element)
        }
        var batch = Queue<Int>()
        guard case .resume(.success(0), _)? = machine.next(nil, batch: &batch) else {
            Issue.record("the first element")
            return
        }
        #expect(batch.isEmpty, "what is not taken stays where a switch discards it")
        // A switch now discards 1 and 2.
        _ = machine.switchToNewInner()
        #expect(machine.next(nil) == nil)
    }

    @Test func aMergeConsumerCancelledWithABatchInHandEndsAtItsNextNext() async {
        let probe = Probe()
        let merged = ProbePublisher<Never>(Array(0..<200), probe: probe).merge(ProbePublisher([]))
        let received = await Task {
            var iterator = merged.makeAsyncIterator()
            var received: [Int?] = [await iterator.next()]
            // The base runs ahead while the consumer is idle, so the next
            // `next` takes a batch.
            await iterator.waitForBufferedElements(atLeast: 8)
            received.append(await iterator.next())
            received.append(await iterator.next())
            withUnsafeCurrentTask { $0?.cancel() }
            received.append(await iterator.next())
            received.append(await iterator.next())
            return received
        }.value
        #expect(received == [0, 1, 2, nil, nil], "the batch is discarded at the next `next`")
        let deadline = ContinuousClock.now + .seconds(30)
        while probe.iteratorsReleased == 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
        #expect(probe.iteratorsReleased == 1, "the base's iteration stops")
    }

    /// Parks `producer` as a producer with a full share does, in a task of
    /// its own, and returns once it is parked; the task's value is what it
    /// was resumed with.
    static func parked(_ producer: Int, _ shared: Shared) async -> Task<Bool, Never> {
        let task = Task {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
                if case .resume(let proceed) = shared.machine.withLock({ $0.park(producer, continuation) }) {
                    continuation.resume(returning: proceed)
                }
            }
        }
        while shared.machine.withLock({ $0.live[producer]?.parked == nil }) {
            await Task.yield()
        }
        return task
    }

    /// Ends the merge, stopping any producer still parked.
    static func stop(_ shared: Shared) {
        for producer in shared.machine.withLock({ $0.cancel() }).stoppedProducers {
            producer.resume(returning: false)
        }
    }

    static func drain(_ batch: inout Queue<Int>) -> [Int] {
        var values: [Int] = []
        while let value = batch.popFirst() { values.append(value) }
        return values
    }

    /// The machine under its lock, as a storage holds it.
    final class Shared: Sendable {
        let machine = Locked(Machine())
    }
}
