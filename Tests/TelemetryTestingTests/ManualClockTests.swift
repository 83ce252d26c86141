import Locking
import Streams
import Synchronization
import TelemetryTesting
import Testing

@Suite struct ManualClockTests {
    typealias Instant = ManualClock.Instant

    @Test func startsAtZeroOrAtTheGivenInstant() {
        #expect(ManualClock().now == .zero)
        #expect(ManualClock(now: Instant(offset: .seconds(3))).now == Instant(offset: .seconds(3)))
        #expect(ManualClock().minimumResolution == .zero)
    }

    @Test func instantsAreDurationOffsetsFromZero() {
        let a = Instant(offset: .milliseconds(1500))
        let b = a.advanced(by: .milliseconds(500))
        #expect(b == Instant(offset: .seconds(2)))
        #expect(a.duration(to: b) == .milliseconds(500))
        #expect(a < b)
        #expect(a + .milliseconds(500) == b)
        #expect(b - .milliseconds(500) == a)
        #expect(b - a == .milliseconds(500))
        #expect(Instant.zero.description == "0.0 seconds")
    }

    @Test func sleepingUntilANonFutureDeadlineReturnsAtOnce() async throws {
        let clock = ManualClock(now: Instant(offset: .seconds(5)))
        try await clock.sleep(until: Instant(offset: .seconds(5)))
        try await clock.sleep(until: .zero)
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
    }

    @Test func sleeperWakesOnlyWhenTheClockReachesItsDeadline() async throws {
        let clock = ManualClock()
        let woke = Atomic(false)
        let sleeper = Task {
            try await clock.sleep(until: Instant(offset: .seconds(5)))
            woke.store(true, ordering: .sequentiallyConsistent)
            return clock.now
        }
        await clock.waitForSleepers(atLeast: 1)
        #expect(clock.nextDeadline == Instant(offset: .seconds(5)))
        await clock.advance(by: .seconds(4))
        #expect(clock.now == Instant(offset: .seconds(4)))
        #expect(clock.sleeperCount == 1)
        let wokeEarly = woke.load(ordering: .sequentiallyConsistent)
        #expect(!wokeEarly)
        await clock.advance(by: .seconds(1))
        #expect(try await sleeper.value == Instant(offset: .seconds(5)))
        #expect(clock.sleeperCount == 0)
        #expect(clock.nextDeadline == nil)
    }

    @Test func advancingPastTheDeadlineWakesTheSleeperAndReachesTheTarget() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .milliseconds(10)) }
        await clock.waitForSleepers(atLeast: 1)
        await clock.advance(to: Instant(offset: .seconds(1)))
        try await sleeper.value
        #expect(clock.now == Instant(offset: .seconds(1)))
    }

    @Test @MainActor func advanceWakesSleepersInDeadlineOrder() async throws {
        let clock = ManualClock()
        var order: [Int] = []
        var sleepers: [Task<Void, any Error>] = []
        for (count, seconds) in [3, 1, 2].enumerated() {
            sleepers.append(
                Task { @MainActor in
                    try await clock.sleep(until: Instant(offset: .seconds(seconds)))
                    order.append(seconds)
                })
            await clock.waitForSleepers(atLeast: count + 1)
        }
        await clock.advance(to: Instant(offset: .seconds(10)))
        for sleeper in sleepers { try await sleeper.value }
        #expect(order == [1, 2, 3])
        #expect(clock.now == Instant(offset: .seconds(10)))
    }

    @Test @MainActor func sleepersWithTheSameDeadlineWakeInRegistrationOrder() async throws {
        let clock = ManualClock()
        var order: [Int] = []
        var sleepers: [Task<Void, any Error>] = []
        for index in 0..<5 {
            sleepers.append(
                Task { @MainActor in
                    try await clock.sleep(until: Instant(offset: .seconds(1)))
                    order.append(index)
                })
            await clock.waitForSleepers(atLeast: index + 1)
        }
        await clock.advance(by: .seconds(1))
        for sleeper in sleepers { try await sleeper.value }
        #expect(order == [0, 1, 2, 3, 4])
    }

    @Test func chainedSleepsWithinOneAdvanceAllComplete() async throws {
        let clock = ManualClock()
        let ticker = Task {
            for tick in 1...3 {
                try await clock.sleep(until: Instant(offset: .seconds(tick)))
            }
        }
        await clock.waitForSleepers(atLeast: 1)
        await clock.advance(to: Instant(offset: .seconds(3)))
        try await ticker.value
        #expect(clock.sleeperCount == 0)
    }

    @Test func steppingOneInstantAtATimeLetsEachWakeSeeItsOwnInstant() async throws {
        let clock = ManualClock()
        let seen = Locked<[Instant]>([])
        let ticker = Task {
            for _ in 1...3 {
                try await clock.sleep(for: .seconds(1))
                seen.withLock { $0.append(clock.now) }
            }
        }
        for _ in 1...3 {
            await clock.waitForSleepers(atLeast: 1)
            await clock.advance(by: .seconds(1))
        }
        try await ticker.value
        #expect(seen.withLock { $0 } == [1, 2, 3].map { Instant(offset: .seconds($0)) })
    }

    @Test func cancellingASleeperRemovesItAndThrowsCancellationError() async {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers(atLeast: 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
        await clock.advance(by: .seconds(60))
        #expect(clock.now == Instant(offset: .seconds(60)))
    }

    @Test func sleepingFromAnAlreadyCancelledTaskThrowsAtOnce() async {
        let clock = ManualClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func waitForSleepersReturnsAtOnceWhenEnoughAreAsleep() async throws {
        let clock = ManualClock()
        await clock.waitForSleepers(atLeast: 0)
        let sleepers = (1...3).map { seconds in
            Task { try await clock.sleep(for: .seconds(seconds)) }
        }
        await clock.waitForSleepers(atLeast: 3)
        #expect(clock.sleeperCount == 3)
        await clock.waitForSleepers(atLeast: 2)
        await clock.advance(by: .seconds(3))
        for sleeper in sleepers { try await sleeper.value }
    }

    @Test func cancellingAWaitForSleepersReturnsEarly() async {
        let clock = ManualClock()
        let waiter = Task { await clock.waitForSleepers(atLeast: 1) }
        waiter.cancel()
        await waiter.value
        #expect(clock.sleeperCount == 0)
    }

    @Test func advancingToThePastNeverMovesTimeBackwards() async {
        let clock = ManualClock(now: Instant(offset: .seconds(10)))
        await clock.advance(to: Instant(offset: .seconds(2)))
        #expect(clock.now == Instant(offset: .seconds(10)))
    }

    @Test func worksAsAGenericClock() async throws {
        func sleepThenReadNow<C: Clock>(on clock: C, for duration: C.Duration) async throws -> C.Instant {
            try await clock.sleep(for: duration)
            return clock.now
        }
        let clock = ManualClock()
        let sleeper = Task { try await sleepThenReadNow(on: clock, for: .seconds(2)) }
        await clock.waitForSleepers(atLeast: 1)
        await clock.advance(by: .seconds(2))
        #expect(try await sleeper.value == Instant(offset: .seconds(2)))

        let viaTask = Task { try await Task.sleep(until: Instant(offset: .seconds(3)), clock: clock) }
        await clock.waitForSleepers(atLeast: 1)
        await clock.advance(by: .seconds(1))
        try await viaTask.value
    }

    @Test func manyConcurrentSleepersAllWake() async throws {
        let clock = ManualClock()
        let count = 200
        let sleepers = (0..<count).map { index in
            Task {
                let deadline = Instant(offset: .milliseconds((index * 7) % 50 + 1))
                try await clock.sleep(until: deadline)
                return deadline
            }
        }
        await clock.waitForSleepers(atLeast: count)
        await clock.advance(by: .milliseconds(50))
        var woken = 0
        for sleeper in sleepers {
            let deadline = try await sleeper.value
            #expect(deadline <= clock.now)
            woken += 1
        }
        #expect(woken == count)
        #expect(clock.sleeperCount == 0)
    }
}
