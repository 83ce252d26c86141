import Streams
import TelemetryTesting
import TestSupport
import Testing

/// The ways an adversarial review made the scheduler pass a wrong pipeline,
/// or misread a script, each pinned: every one of these must fail (or be
/// reported), never pass.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct SchedulerAdversaryTests {
    // MARK: - Stamps are exact at every tick

    /// `offset / tick` in floating point comes out a hair under 13 for
    /// 13 one-hour ticks: an output one tick late was stamped on time.
    @Test(arguments: [
        (Duration.seconds(3600), 12), (.seconds(60), 158), (.nanoseconds(16_666_667), 278), (.seconds(5), 472),
    ])
    func anOutputOneTickLateFailsAtEveryTick(tick: Duration, at index: Int) async {
        let diagram = String(repeating: "-", count: index) + "a"
        let scheduler = TestScheduler(tick: tick)
        let run = await scheduler.run(
            scheduler.hot(diagram).delay(scheduler.ticks(1), clock: scheduler.clock), through: index + 2)
        #expect(run.mismatch(expected: diagram) != nil, "one tick late passed at tick \(index + 1)")
        #expect(run.mismatch(expected: "-" + diagram) == nil, "\(run.diagram)")
    }

    /// The other side of the same rounding: a pass-through was stamped one
    /// tick early. Every tick up to 2,500 of one-second ticks (the first
    /// wrong one was 2,365).
    @Test func aPassThroughIsStampedAtItsOwnTickThroughALongRun() async {
        let diagram = String(repeating: "a", count: 2_500) + "|"
        let scheduler = TestScheduler()
        let input = scheduler.hot(diagram)
        let run = await scheduler.run(input.map { $0 })
        #expect(run.mismatch(expected: diagram) == nil)
        #expect(run.events.enumerated().allSatisfy { index, event in event.tick == index })
        #expect(
            input.subscriptionMarbles == [
                "^" + String(repeating: "-", count: 2_499) + "!"
            ])
    }

    @Test func theCancelTickIsExact() async {
        let scheduler = TestScheduler(tick: .seconds(60))
        let input = scheduler.hot(String(repeating: "-", count: 200))
        _ = await scheduler.run(input, cancelAt: 159, through: 200)
        #expect(input.subscriptions == [TestSubscription(subscribedAt: 0, unsubscribedAt: 159)])
    }

    // MARK: - The scheduler's own cancel at the end is no event of the run

    /// An operator that emits only when its consumer is cancelled looked,
    /// at the end of a run, like one that emits at the last tick.
    @Test func anOutputCausedByTheEndOfTheRunIsReportedNotRecorded() async {
        let correct = TestScheduler()
        #expect(await correct.run(correct.hot("a-b-z"), through: 4).mismatch(expected: "a-b-z") == nil)
        let scheduler = TestScheduler()
        let run = await scheduler.run(EmitOnCancel(base: scheduler.hot("a-b")), through: 4)
        #expect(run.mismatch(expected: "a-b-z") != nil)
        #expect(run.diagram == "a-b")
        #expect(run.issues.count == 1)
        #expect(run.issues.first?.contains("value(z)@4") == true, "\(run.issues)")
    }

    // MARK: - A value is never read as a symbol

    @Test func aValueThatLooksLikeASymbolIsNotThatSymbol() async {
        let scheduler = TestScheduler()
        let run = await scheduler.run(
            scheduler.hot("a-b-c-d").map { ["c": "|", "d": "-", "b": "^"][$0] ?? $0 }, through: 7)
        #expect(run.mismatch(expected: "a-b-|") != nil)
        #expect(run.mismatch(expected: "a-^") != nil)
        #expect(run.mismatch(expected: "a-(^)-(|)-(-)") == nil, "\(run.diagram)")
    }

    // MARK: - Faults of the script are issues, not a different script

    @Test func aMalformedInputDiagramIsAnIssue() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("[ab-c|")
        let run = await scheduler.run(input)
        #expect(run.issues.first?.contains("a '-' inside the group opened at 0") == true, "\(run.issues)")
        #expect(run.mismatch(expected: "[abc|]") != nil)
    }

    @Test func aMalformedExpectedDiagramFailsTheComparison() async {
        let scheduler = TestScheduler()
        let run = await scheduler.run(scheduler.hot("a-b-c|"))
        for typo in ["a-b-c|]", "a-b-c[|", "a-b-c[|]]", "a-b-(c|"] {
            let mismatch = run.mismatch(expected: typo)
            #expect(mismatch != nil, "\(typo)")
            #expect(
                mismatch?.issues.first?.hasPrefix("the expected the marble diagram") == true,
                "\(mismatch?.issues ?? [])")
        }
        #expect(run.mismatch(expected: "a-b-c|") == nil)
    }

    @Test func aSymbolWithoutAValueIsAnIssueNotACrash() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b|", values: ["a": 1], error: MarbleError())
        let run = await scheduler.run(input)
        #expect(run.issues.first?.contains("uses \"b\", which has no value") == true, "\(run.issues)")
        #expect(run.mismatch(expected: [.value(1, at: 0), .finish(at: 3)]) != nil)
    }

    @Test func eventsAtNegativeTicksAreAnIssue() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot([.value(1, at: -1), .value(2, at: 1)] as [MarbleEvent<Int, Never>])
        let run = await scheduler.run(input, through: 2)
        #expect(run.events == [.value(2, at: 1)])
        #expect(run.issues.first?.contains("negative ticks") == true, "\(run.issues)")
    }

    @Test func aSecondRunOfOneSchedulerIsAnIssue() async {
        let scheduler = TestScheduler()
        #expect(await scheduler.run(scheduler.hot("x-y|")).mismatch(expected: "x-y|") == nil)
        let second = await scheduler.run(scheduler.hot("x-y|"))
        #expect(second.mismatch(expected: "x-y|") != nil)
        #expect(second.issues.first?.contains("make a new scheduler for each run") == true)
    }

    @Test func negativeTicksForTheRunAreAnIssue() async {
        let scheduler = TestScheduler()
        let run = await scheduler.run(scheduler.hot("a|"), through: -5)
        #expect(run.issues.first?.contains("through is tick -5") == true, "\(run.issues)")
    }

    /// A timeout 150 ticks after the last input would fire after the run
    /// stopped 100 ticks after it: a test asserting "no timeout" passed.
    @Test func aRunCutOffWithATimerArmedIsAnIssue() async {
        let scheduler = TestScheduler()
        let run = await scheduler.run(scheduler.hot("a-b").timeout(scheduler.ticks(150), clock: scheduler.clock))
        #expect(run.mismatch(expected: "a-b") != nil)
        #expect(run.issues.first?.contains("pass `through:`") == true, "\(run.issues)")
        let through = TestScheduler()
        let full = await through.run(through.hot("a-b").timeout(through.ticks(150), clock: through.clock), through: 160)
        #expect(full.mismatch(expected: "a-b" + String(repeating: "-", count: 149) + "^") == nil, "\(full.diagram)")
    }

    // MARK: - An operator timed on another clock is reported

    /// A `clock:` left out times the operator on `ContinuousClock`: its
    /// element arrives after the run ended, and the run matched `a---c`.
    @Test func anOperatorOnContinuousClockIsAnIssue() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b-c")
        let wrong = input.filter { $0 != "b" }.merge(input.filter { $0 == "b" }.delay(.milliseconds(300)))
        let run = await scheduler.run(wrong, through: 6)
        #expect(run.mismatch(expected: "a---c") != nil)
        #expect(run.issues.contains { $0.contains("timed on ContinuousClock") }, "\(run.issues)")
    }

    @Test func anOperatorOnAnotherManualClockIsAnIssue() async {
        let scheduler = TestScheduler()
        let run = await scheduler.run(
            scheduler.hot("a-b|").debounce(for: scheduler.ticks(1), clock: ManualClock()), through: 4)
        #expect(run.issues.contains { $0.contains("timed on another ManualClock") }, "\(run.issues)")
        let right = TestScheduler()
        let sound = await right.run(right.hot("a-b|").debounce(for: right.ticks(1), clock: right.clock))
        #expect(sound.issues.isEmpty, "\(sound.issues)")
    }

    @Test func timestampOnContinuousClockIsAnIssue() async {
        let scheduler = TestScheduler()
        let run = await scheduler.run(scheduler.hot("ab|").timestamp().map(\.value))
        #expect(run.issues.contains { $0.contains("timed on ContinuousClock") }, "\(run.issues)")
    }

    /// A clock that forwards to the scheduler's is reported unless it says
    /// so; a wrapper of `ContinuousClock` is reported either way.
    @Test func aWrapperOfTheSchedulersClockIsFineOnceItSaysSo() async {
        let scheduler = TestScheduler()
        let plain = await scheduler.run(
            scheduler.hot("a-b----c--|").debounce(for: scheduler.ticks(3), clock: Forwarding(base: scheduler.clock)))
        #expect(plain.issues.contains { $0.contains("timed on Forwarding") }, "\(plain.issues)")
        let declared = TestScheduler()
        let run = await declared.run(
            declared.hot("a-b----c--|").debounce(
                for: declared.ticks(3), clock: DeclaredForwarding(base: declared.clock)))
        #expect(run.mismatch(expected: "-----b----[c|]") == nil, "\(run.diagram) \(run.issues)")
    }

    /// A clock reused from an earlier run starts the next at tick 3: a
    /// pipeline without delay matched a 3-tick delay.
    @Test func aClockNotAtZeroIsAnIssue() async {
        let clock = ManualClock()
        _ = await Marble.run(
            inputs: [.value("x", at: 0), .finish(at: 3)] as [MarbleEvent<String, Never>], clock: clock
        ) {
            input, _ in input
        }
        let run = await Marble.run(
            inputs: [.value("a", at: 0), .finish(at: 0)] as [MarbleEvent<String, Never>], clock: clock
        ) { input, _ in input }
        #expect(run.mismatch(expected: "---[a|]") != nil)
        #expect(run.issues.first?.contains("not zero") == true, "\(run.issues)")
    }

    /// A hot input made after its ticks were sent (inside a transform)
    /// never sends those events: an issue, not a silent empty output.
    @Test func aHotInputMadeTooLateIsAnIssue() async {
        let scheduler = TestScheduler()
        let run = await scheduler.run(scheduler.hot("---a|").flatMap { _ in scheduler.hot("x-y") }, through: 6)
        #expect(run.issues.contains { $0.contains("was made after tick 3's inputs were sent") }, "\(run.issues)")
    }

    @Test func aRunGoesOnToItsCancelTick() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b")
        let run = await scheduler.run(input, cancelAt: 6)
        #expect(run.mismatch(expected: "a-b") == nil, "\(run.issues)")
        #expect(input.subscriptionMarbles == ["^-----!"])
    }

    @Test func aTickBeyondWhatADurationHoldsIsAnIssueNotATrap() async {
        let scheduler = TestScheduler(tick: .seconds(Int64.max))
        let run = await scheduler.run(scheduler.hot("a-b"), through: 30)
        #expect(run.issues.contains { $0.contains("past the latest instant a Duration holds") }, "\(run.issues)")
    }

    // MARK: - The comparison is by event, not by rendered text

    /// A letter and a combining mark, or two regional indicators, at two
    /// ticks render as one character: they must not match one value.
    @Test(arguments: [("a", "\u{301}", "\u{E1}"), ("\u{1F1EB}", "\u{1F1F7}", "\u{1F1EB}\u{1F1F7}")])
    func valuesThatRenderAsOneCharacterStayApart(first: String, second: String, merged: String) async {
        let scheduler = TestScheduler()
        let run = await scheduler.run(scheduler.hot("ab").map { $0 == "a" ? first : second })
        #expect(run.mismatch(expected: merged) != nil, "\(run.diagram)")
        #expect(run.mismatch(expected: [.value(first, at: 0), .value(second, at: 1)]) == nil)
    }

    @Test func aValueWithUnbalancedParenthesesIsNotTwoValues() async {
        let scheduler = TestScheduler()
        let run = await scheduler.run(scheduler.hot("a").map { _ in "xx)(yy" })
        #expect(run.mismatch(expected: "(xx)(yy)") != nil)
        #expect(run.mismatch(expected: [.value("xx)(yy", at: 0)]) == nil)
    }

    // MARK: - Subscription marbles are strict

    @Test func malformedSubscriptionMarblesDoNotParse() {
        for marble in ["^]!", "[^", "^-[!", "^[-]!", "^^", "^!!", "[^!]!", "[!^]"] {
            #expect(TestSubscription(marble: marble) == nil, "\(marble)")
        }
        #expect(TestSubscription(marble: " -\t[^!] ") == TestSubscription(subscribedAt: 1, unsubscribedAt: 1))
    }
}

/// A deliberately wrong operator: when its consumer is cancelled, it emits
/// `"z"` instead of ending.
private struct EmitOnCancel<Base: Publisher & Sendable>: Publisher, Sendable where Base.Element == String {
    typealias Element = String
    typealias Failure = Base.Failure

    let base: Base

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator())
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var flushed = false

        mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(Failure) -> String? {
            if let element = try await base.next(isolation: actor) {
                return element
            }
            if Task.isCancelled && !flushed {
                flushed = true
                return "z"
            }
            return nil
        }
    }
}

/// A clock that forwards to a manual clock without saying so.
private struct Forwarding: Clock {
    let base: ManualClock
    var now: ManualClock.Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    func sleep(until deadline: ManualClock.Instant, tolerance: Duration?) async throws {
        try await base.sleep(until: deadline, tolerance: tolerance)
    }
}

/// The same, declared as a ``ManualClockWrapper``.
private struct DeclaredForwarding: Clock, ManualClockWrapper {
    let base: ManualClock
    var wrappedManualClock: ManualClock { base }
    var now: ManualClock.Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    func sleep(until deadline: ManualClock.Instant, tolerance: Duration?) async throws {
        try await base.sleep(until: deadline, tolerance: tolerance)
    }
}
