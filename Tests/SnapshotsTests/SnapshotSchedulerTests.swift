import Snapshots
import Testing

@Suite struct SnapshotSchedulerTests {
    private static let second: UInt64 = 1_000_000_000

    private func trigger(_ seconds: UInt64, before: UInt64? = nil) -> SnapshotTrigger {
        SnapshotTrigger(time: seconds * Self.second, source: .api, reason: "t\(seconds)", before: before)
    }

    @Test func aTriggerAsksForTheTimeAroundIt() {
        var scheduler = SnapshotScheduler(before: 30 * Self.second, after: 10 * Self.second)
        guard case .opened(let window) = scheduler.offer(trigger(100)) else {
            Issue.record("not opened")
            return
        }
        #expect(window.start == 70 * Self.second)
        #expect(window.end == 110 * Self.second)
        #expect(scheduler.due(at: 110 * Self.second - 1).isEmpty)
        #expect(scheduler.due(at: 110 * Self.second) == [window])
        #expect(scheduler.due(at: 200 * Self.second).isEmpty)
    }

    @Test func overlappingTriggersMakeOneSnapshot() {
        var scheduler = SnapshotScheduler(before: 30 * Self.second, after: 10 * Self.second)
        _ = scheduler.offer(trigger(100))
        // 135 − 30 = 105 ≤ 110: it extends the open window to 145.
        guard case .extended(let window) = scheduler.offer(trigger(135)) else {
            Issue.record("not extended")
            return
        }
        #expect(window.start == 70 * Self.second && window.end == 145 * Self.second)
        #expect(window.triggers.map(\.reason) == ["t100", "t135"])
        #expect(scheduler.due(at: 144 * Self.second).isEmpty)
        #expect(scheduler.due(at: 145 * Self.second).map(\.end) == [145 * Self.second])
    }

    @Test func aLaterTriggerClosesTheWindowItDoesNotTouch() {
        var scheduler = SnapshotScheduler(before: 5 * Self.second, after: 10 * Self.second)
        _ = scheduler.offer(trigger(100))
        // 200 − 5 > 110: the first window is closed and handed over, a second opens.
        guard case .opened(let second) = scheduler.offer(trigger(200)) else {
            Issue.record("not opened")
            return
        }
        #expect(second.start == 195 * Self.second)
        #expect(scheduler.ready().map(\.end) == [110 * Self.second])
        #expect(scheduler.ready().isEmpty)
    }

    @Test func cooldownAndHourlyLimitSuppressFlapping() {
        var scheduler = SnapshotScheduler(
            before: Self.second, after: Self.second, cooldown: 10 * Self.second, maximumPerHour: 2)
        _ = scheduler.offer(trigger(100))
        _ = scheduler.due(at: 101 * Self.second)
        guard case .suppressed = scheduler.offer(trigger(105)) else {
            Issue.record("not suppressed in the cooldown")
            return
        }
        guard case .opened = scheduler.offer(trigger(111)) else {
            Issue.record("not opened after the cooldown")
            return
        }
        _ = scheduler.due(at: 112 * Self.second)
        guard case .suppressed(let why) = scheduler.offer(trigger(200)) else {
            Issue.record("the third in an hour was not suppressed")
            return
        }
        #expect(why.contains("2 snapshots in the last hour"))
        // An hour after the first, one more fits.
        guard case .opened = scheduler.offer(trigger(3_700)) else {
            Issue.record("not opened an hour later")
            return
        }
    }

    @Test func theEndOfInputCutsTheOpenWindow() {
        var scheduler = SnapshotScheduler(before: 5 * Self.second, after: 60 * Self.second)
        _ = scheduler.offer(trigger(100))
        #expect(scheduler.closeEarly(at: 130 * Self.second).map(\.end) == [130 * Self.second])
        #expect(scheduler.open == nil)
    }

    @Test func beforeReachingBackPastZeroStartsAtZero() {
        var scheduler = SnapshotScheduler(before: .max, after: 0)
        guard case .opened(let window) = scheduler.offer(trigger(3)) else {
            Issue.record("not opened")
            return
        }
        #expect(window.start == 0 && window.end == 3 * Self.second)
    }
}
