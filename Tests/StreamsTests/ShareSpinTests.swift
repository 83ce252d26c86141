import Foundation
import Locking
import TestSupport
import Testing

@testable import Streams

/// A share or replay consumed from the main actor spins briefly before it
/// suspends, and so does its upstream (`HandOffSpin`). Spinning must change
/// nothing a consumer can see: every element once and in order, the end
/// and the failure after the buffer, cancellation at once. These tests run
/// the spinning paths with upstreams fast enough that spins succeed, slow
/// enough that they run out, and next to consumers that do not spin.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct ShareSpinTests {
    static let count = 5_000

    @Test @MainActor func aMainActorConsumerOfAFastUpstreamGetsEveryElementInOrder() async {
        var seen: [Int] = []
        seen.reserveCapacity(Self.count)
        for await value in ProbePublisher<Never>(Array(0..<Self.count)).share() {
            MainActor.assertIsolated()
            seen.append(value)
        }
        #expect(seen == Array(0..<Self.count))
    }

    @Test @MainActor func mainActorAndPoolConsumersOfOneUpstreamEachGetEveryElement() async {
        let shared = ProbePublisher<Never>(Array(0..<Self.count)).share()
        // Both iterators subscribe before either asks, so both see the whole upstream.
        var onMain = shared.makeAsyncIterator()
        let onPool = shared.makeAsyncIterator()
        let pool = Task.detached {
            var iterator = onPool
            var seen: [Int] = []
            while let value = await iterator.next(isolation: nil) { seen.append(value) }
            return seen
        }
        var seen: [Int] = []
        while let value = await onMain.next() { seen.append(value) }
        #expect(seen == Array(0..<Self.count))
        #expect(await pool.value == Array(0..<Self.count))
    }

    @Test @MainActor func aMainActorConsumerOfASlowUpstreamSuspendsAndMissesNothing() async {
        var seen: [Int] = []
        for await value in PacedPublisher(count: 30, pause: .milliseconds(1)).share() {
            seen.append(value)
        }
        #expect(seen == Array(0..<30))
    }

    @Test @MainActor func aSlowMainActorConsumerPacesASpinningUpstreamWithoutLoss() async {
        var seen: [Int] = []
        for await value in ProbePublisher<Never>(Array(0..<200)).share() {
            if value % 20 == 0 {
                // Longer than a spin: the upstream, blocked by the full buffer, suspends.
                try? await Task.sleep(for: .milliseconds(1))
            }
            seen.append(value)
        }
        #expect(seen == Array(0..<200))
    }

    @Test @MainActor func aFailureReachesASpinningConsumerAfterItsElements() async {
        var iterator = ProbePublisher<TestError>(Array(0..<1_000), ending: .fail(.upstream)).share()
            .makeAsyncIterator()
        var seen: [Int] = []
        var failure: TestError?
        do {
            while let value = try await iterator.next() { seen.append(value) }
        } catch {
            failure = error
        }
        #expect(seen == Array(0..<1_000))
        #expect(failure == .upstream)
    }

    @Test @MainActor func cancellingASpinningConsumerEndsItAndCancelsTheUpstream() async {
        let probe = Probe()
        let consumer = Task { @MainActor in
            var count = 0
            for await _ in EndlessPublisher(probe: probe).share() { count += 1 }
            return count
        }
        while probe.nextCalls < 1_000 { await Task.yield() }
        consumer.cancel()
        let received = await consumer.value
        #expect(received >= 999)
        let deadline = ContinuousClock.now + .seconds(30)
        while probe.iteratorsReleased == 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
        #expect(probe.iteratorsReleased == 1, "the upstream iteration ended with the last consumer")
    }

    @Test @MainActor func aLateReplayConsumerGetsTheLatestThenTheRestFromTheMainActor() async {
        let replayed = ProbePublisher<Never>(Array(0..<Self.count)).replay(1)
        var seen: [Int] = []
        for await value in replayed { seen.append(value) }
        #expect(seen == Array(0..<Self.count))
        var late: [Int] = []
        for await value in replayed { late.append(value) }
        #expect(late == [Self.count - 1], "after the end, the replay then the end")
    }

    @Test func theUpstreamSpinsOnlyWhenEveryConsumerItWaitsForSpins() {
        var machine = ShareStateMachine<Int, Never>(policy: .bounded(1), replayLimit: nil)
        let spinning = machine.subscribe(ShareDropCounter())
        let waiting = machine.subscribe(ShareDropCounter())
        _ = machine.next(spinning, nil, spins: true)
        _ = machine.next(waiting, nil, spins: false)
        #expect(machine.upstreamSpins, "both have room: the upstream waits for no one")
        machine.state = .running(generation: 1)
        var resumed: [ShareStateMachine<Int, Never>.ConsumerContinuation] = []
        #expect(machine.publish(1, 7, into: &resumed))
        #expect(machine.waitForDemand(1, nil) == nil, "both buffers are full")
        #expect(!machine.upstreamSpins, "it waits for a consumer that does not spin")
        guard case .resume(.success(7), _) = machine.next(waiting, nil, spins: false) else {
            Issue.record("the waiting consumer's element")
            return
        }
        #expect(machine.upstreamSpins, "now it waits only for the spinning one")
    }

    @Test func anotherConsumersTakeMovesOnlyTheUpstreamsCounter() async {
        guard HandOffSpin.limit > 0 else {
            return  // one processor: never spins, the counters stay off
        }
        let storage = ShareStorage(base: ProbePublisher<Never>([]), policy: .bounded(1), replayLimit: nil)
        storage.consumerSpin.enable()
        storage.upstreamSpin.enable()
        let first = storage.subscribe(ShareDropCounter())
        let second = storage.subscribe(ShareDropCounter())
        var resumed: [ShareStateMachine<Int, Never>.ConsumerContinuation] = []
        let published = storage.state.withLock { machine in
            machine.state = .running(generation: 1)
            return machine.publish(1, 7, into: &resumed)
        }
        #expect(published && resumed.isEmpty, "both buffer the element")
        let (consumers, upstream) = (storage.consumerSpin.current, storage.upstreamSpin.current)

        #expect(storage.take(first, spins: true) == .success(7))
        #expect(storage.consumerSpin.current == consumers, "another consumer's take wakes no consumer")
        #expect(storage.upstreamSpin.current == upstream &+ 1, "it may give the upstream demand")

        storage.remove(second)
        #expect(storage.consumerSpin.current == consumers &+ 1)
        #expect(storage.upstreamSpin.current == upstream &+ 2)
        #expect(storage.take(first, spins: true) == nil, "nothing left for the first")
    }

    @Test func aSpinEndsWhenTheCounterMovesAndRunsOutWhenItDoesNot() async {
        let spin = HandOffSpin()
        spin.changed()
        #expect(spin.current == 0, "off until a consumer on an actor enables it")
        guard HandOffSpin.limit > 0 else {
            return  // one processor: never spins
        }
        spin.enable()
        var allowance = HandOffSpin.Allowance()
        #expect(spin.wait(past: spin.current, &allowance) == nil, "nothing changed: it gives up")
        let seen = spin.current
        // Another thread moves the counter while this one spins.
        Thread.detachNewThread {
            usleep(1_000)
            spin.changed()
        }
        var moved: UInt?
        let deadline = ContinuousClock.now + .seconds(30)
        while moved == nil, ContinuousClock.now < deadline {
            var fresh = HandOffSpin.Allowance()
            moved = spin.wait(past: seen, &fresh)
        }
        #expect(moved == seen &+ 1)
    }

    /// Other sides' steps move the counter without end while this side's
    /// check keeps finding nothing (seven consumers of a share taking
    /// elements, the upstream waiting for the eighth): the spin still ends
    /// when its time is spent. It once spun for as long as the counter
    /// moved, holding the main actor for minutes on a loaded machine.
    @Test func aSpinRunsOutWhileTheCounterKeepsMovingAndTheCheckFindsNothing() {
        let spin = HandOffSpin()
        guard HandOffSpin.limit > 0 else {
            return  // one processor: never spins
        }
        spin.enable()
        var checks = 0
        let found: Int? = spin.spin(past: spin.current &- 1) {
            checks += 1
            spin.changed()  // another side's step: the counter moves before every look
            return checks < 20_000_000 ? nil : checks  // a spin that never ends is stopped here
        }
        #expect(found == nil, "the spin looked \(checks) times, until the test stopped it")
    }
}

/// Counts up without end, reporting each `next` and its release to a probe.
private struct EndlessPublisher: Publisher, Sendable {
    typealias Element = Int
    typealias Failure = Never

    let probe: Probe

    struct Iterator: AsyncIteratorProtocol {
        let probe: Probe
        let token: ProbePublisher<Never>.ReleaseToken
        var next = 0

        mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Int? {
            probe.record { $0.nextCalls += 1 }
            defer { next += 1 }
            return next
        }

        mutating func next() async -> Int? { await next(isolation: nil) }
    }

    func makeAsyncIterator() -> Iterator {
        probe.record { $0.iteratorsMade += 1 }
        return Iterator(probe: probe, token: ProbePublisher<Never>.ReleaseToken(probe: probe))
    }
}
