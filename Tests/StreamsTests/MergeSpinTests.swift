import Foundation
import Locking
import TestSupport
import Testing

@testable import Streams

/// A merge or flat map consumed from the main actor spins briefly before it
/// suspends (`HandOffSpin`, bumped by every buffered delivery and every
/// end). Spinning must change nothing a consumer can see: every element
/// once and in each base's order, the failure after the elements received
/// before it, no element of a superseded inner, cancellation at once. These
/// tests run the spinning paths with bases fast enough that spins succeed
/// and slow enough that they run out.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct MergeSpinTests {
    static let count = 5_000

    @Test @MainActor func aMainActorConsumerOfTwoFastBasesGetsEveryElementInEachBasesOrder() async {
        let first = ProbePublisher<Never>(Array(0..<Self.count))
        let second = ProbePublisher<Never>(Array(Self.count..<(2 * Self.count)))
        var seen: [Int] = []
        for await value in first.merge(second) {
            MainActor.assertIsolated()
            seen.append(value)
        }
        #expect(seen.sorted() == Array(0..<(2 * Self.count)))
        #expect(seen.filter { $0 < Self.count } == Array(0..<Self.count))
        #expect(seen.filter { $0 >= Self.count } == Array(Self.count..<(2 * Self.count)))
    }

    @Test @MainActor func aMainActorConsumerOfASlowBaseSuspendsAndMissesNothing() async {
        var seen: [Int] = []
        for await value in PacedPublisher(count: 30, pause: .milliseconds(1)).merge(ProbePublisher<Never>([])) {
            seen.append(value)
        }
        #expect(seen == Array(0..<30))
    }

    @Test @MainActor func aFailureComesAfterEveryElementItsBaseDeliveredBeforeIt() async {
        let failing = ProbePublisher<TestError>(Array(0..<Self.count), ending: .fail(.upstream))
        var seen: [Int] = []
        var thrown: TestError?
        do {
            for try await value in failing.merge(ProbePublisher<TestError>([])) {
                seen.append(value)
            }
        } catch {
            thrown = error
        }
        #expect(seen == Array(0..<Self.count))
        #expect(thrown == .upstream)
    }

    @Test @MainActor func flatMapFromTheMainActorGetsEveryInnerElementInItsOrder() async {
        let outer = ProbePublisher<Never>(Array(0..<10))
        var seen: [Int] = []
        for await value in outer.flatMap(
            maxConcurrency: 2,
            { index in
                ProbePublisher<Never>(Array((index * 500)..<(index * 500 + 500)))
            })
        {
            seen.append(value)
        }
        #expect(seen.sorted() == Array(0..<5_000))
        for index in 0..<10 {
            #expect(seen.filter { $0 / 500 == index } == Array((index * 500)..<(index * 500 + 500)))
        }
    }

    @Test @MainActor func flatMapLatestFromTheMainActorNeverGoesBackToASupersededInner() async {
        let outer = ProbePublisher<Never>(Array(0..<5))
        var seen: [Int] = []
        for await value in outer.flatMapLatest({ index in
            ProbePublisher<Never>(Array((index * 1_000)..<(index * 1_000 + 1_000)))
        }) {
            seen.append(value)
        }
        let inners = seen.map { $0 / 1_000 }
        #expect(inners == inners.sorted(), "an element of a superseded inner came after a later inner's")
        #expect(seen.filter { $0 >= 4_000 } == Array(4_000..<5_000), "the latest inner runs to its end")
    }

    @Test @MainActor func cancellingAMainActorConsumerEndsIt() async throws {
        let received = Locked(0)
        let consumer = Task { @MainActor in
            for await _ in PacedPublisher(count: .max, pause: .milliseconds(2)).merge(ProbePublisher<Never>([])) {
                received.withLock { $0 += 1 }
            }
        }
        // Cancel once it is consuming, however loaded the machine is.
        while received.withLock({ $0 }) < 3 {
            try await Task.sleep(for: .milliseconds(1))
        }
        // Both run on the main actor: the consumer cannot take an element
        // between this read and the cancel.
        let atCancel = received.withLock { $0 }
        consumer.cancel()
        await consumer.value
        #expect(
            received.withLock { $0 } <= atCancel + 1,
            "at most the element handed over before the cancel; the next `next` ends it")
    }

    @Test func aBufferedDeliveryAndAnEndMoveTheCounter() async {
        guard HandOffSpin.limit > 0 else {
            return  // one processor: never spins, the counter stays off
        }
        let storage = MergeStorage<Int, Never>(runners: [])
        storage.spin.enable()
        guard case .startProducers(let ids) = storage.state.withLock({ $0.start(producers: 1, open: false) }),
            let producer = ids.first
        else {
            Issue.record("one producer")
            return
        }
        let before = storage.spin.current
        #expect(storage.offer(producer, 7) == .proceed)
        #expect(storage.spin.current == before &+ 1, "a buffered delivery")
        storage.producerFinished(producer)
        #expect(storage.spin.current == before &+ 2, "the end")
    }
}
