import Locking
import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct TestSchedulerTests {
    @Test func aHotInputPassedThroughIsRecordedAtItsTicks() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a--b-c|")
        let run = await scheduler.run(input)
        #expect(run.mismatch(expected: "a--b-c|") == nil)
        #expect(run.diagram == "a--b-c|")
        #expect(run.issues.isEmpty)
        #expect(input.subscriptionMarbles == ["^-----!"])
    }

    @Test func multiCharacterValuesGroupsAndFailures() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("(ab)-[cd]-#")
        let run = await scheduler.run(input.map { $0.uppercased() })
        #expect(run.mismatch(expected: "(AB)-[CD]-^") == nil)
        #expect(run.mismatch(expected: "(AB)-[CD]-#") == nil, "# is a failure too")
        #expect(input.subscriptionMarbles == ["^---!"])
    }

    @Test func typedValuesAndErrors() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b-^", values: ["a": 1, "b": 2], error: MarbleError("boom"))
        let run = await scheduler.run(input.map { $0 * 10 })
        #expect(
            run.mismatch(expected: [.value(10, at: 0), .value(20, at: 2), .failure(MarbleError("boom"), at: 4)]) == nil)
    }

    @Test func coldInputsStartTheirScriptAtEachSubscription() async {
        let scheduler = TestScheduler()
        let outer = scheduler.hot("a---b|")
        let inner = scheduler.cold("x-y|")
        let run = await scheduler.run(outer.flatMap(maxConcurrency: 1) { _ in inner })
        #expect(run.mismatch(expected: "x-y-x-y|") == nil)
        #expect(inner.subscriptionMarbles == ["^--!", "----^--!"])
        #expect(outer.subscriptionMarbles == ["^----!"])
    }

    @Test func hotInputsAreMissedBeforeSubscription() async {
        let scheduler = TestScheduler()
        let trigger = scheduler.hot("-x|")
        let late = scheduler.hot("ab-c|")
        let run = await scheduler.run(trigger.flatMap(maxConcurrency: 1) { _ in late })
        // `b`, sent at tick 1 with `x`, went before the subscription `x` caused.
        #expect(run.mismatch(expected: "---c|") == nil)
        #expect(late.subscriptionMarbles == ["-^--!"])
    }

    @Test func timersDueAtATickFireAfterThatTicksInputs() async {
        let scheduler = TestScheduler()
        // `b` arrives at tick 3, exactly when `a`'s debounce timer is due:
        // the input is handled first, so `a` is replaced and never emitted.
        let input = scheduler.hot("a--b|")
        let run = await scheduler.run(input.debounce(for: scheduler.ticks(3), clock: scheduler.clock))
        #expect(run.mismatch(expected: "----[b|]") == nil, "\(run.diagram)")
    }

    @Test func subscriptionMarblesShowWhenAnOperatorCancelsItsUpstream() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b-c|")
        let run = await scheduler.run(input.prefix(2))
        #expect(run.mismatch(expected: "a-[b|]") == nil)
        #expect(input.subscriptionMarbles == ["^-!"])
        #expect(input.subscriptions == [TestSubscription(marble: "^-!")])
    }

    @Test func cancellingAtATickIsRecordedAsAnUnsubscription() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b-c-d|")
        let run = await scheduler.run(input, cancelAt: 3)
        #expect(run.mismatch(expected: "a-b") == nil)
        #expect(input.subscriptionMarbles == ["^--!"])
    }

    @Test func anInputNeverFinishedLeavesItsSubscriptionOpen() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b")
        let run = await scheduler.run(input, through: 5)
        #expect(run.mismatch(expected: "a-b") == nil)
        #expect(input.subscriptionMarbles == ["^"])
    }

    @Test func elementsAPipelineNeverPulledAreReported() async {
        let scheduler = TestScheduler()
        // One inner at a time, and the first never ends: the outer is not pulled after `a`.
        let first = scheduler.hot("abc")
        let inner = scheduler.cold("x")
        let run = await scheduler.run(first.flatMap(maxConcurrency: 1) { _ in inner }, through: 3)
        #expect(run.mismatch(expected: "x") == nil, "\(run.diagram)")
        #expect(run.unpulled.count == 1)
        #expect(run.unpulled.first?.hasPrefix("hot abc") == true, "\(run.unpulled)")
    }

    @Test func subscriptionMarblesParseAndRender() {
        #expect(TestSubscription(marble: "--^---!") == TestSubscription(subscribedAt: 2, unsubscribedAt: 6))
        #expect(TestSubscription(marble: "-[^!]") == TestSubscription(subscribedAt: 1, unsubscribedAt: 1))
        #expect(TestSubscription(marble: "^") == TestSubscription(subscribedAt: 0))
        #expect(TestSubscription(marble: "--!") == nil)
        #expect(TestSubscription(marble: "^-x") == nil)
        for marble in ["--^---!", "-[^!]", "^", "^!"] {
            #expect(TestSubscription(marble: marble)?.description == marble)
        }
    }

    // MARK: - It cannot pass falsely: deliberately wrong operators fail.

    @Test func anOperatorOneTickLateFails() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b----c--|")
        // A debounce one tick too long: every output one tick late.
        let run = await scheduler.run(input.debounce(for: scheduler.ticks(4), clock: scheduler.clock))
        let mismatch = run.mismatch(expected: "-----b----[c|]")
        #expect(mismatch != nil)
        #expect(mismatch?.actual == "------b---[c|]")
    }

    @Test func anOperatorOneTickEarlyFails() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b----c--|")
        let run = await scheduler.run(input.debounce(for: scheduler.ticks(2), clock: scheduler.clock))
        #expect(run.mismatch(expected: "-----b----[c|]")?.actual == "----b----c|")
    }

    @Test func anExtraElementFails() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b|")
        let run = await scheduler.run(Doubling(base: input))
        #expect(run.mismatch(expected: "a-b|") != nil)
        #expect(run.diagram == "[aa]-[bb]|")
    }

    @Test func aMissingElementFails() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-a-b|")
        let run = await scheduler.run(input.removeDuplicates())
        #expect(run.mismatch(expected: "a-a-b|") != nil)
        #expect(run.mismatch(expected: "a---b|") == nil)
    }

    @Test func aMissingCancelFails() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b-c|")
        let leak = Leak()
        let run = await scheduler.run(LeakyPrefix(base: input, count: 2, leak: leak))
        #expect(run.mismatch(expected: "a-[b|]") == nil, "the output alone looks right")
        #expect(input.subscriptionMarbles != ["^-!"], "but the upstream was never cancelled")
        #expect(input.subscriptionMarbles == ["^"])
    }

    @Test func aPipelineThatNeverSettlesIsReportedNotHung() async {
        let scheduler = TestScheduler(settleTimeout: .milliseconds(300))
        // Resubscribes to a failing cold input forever: it never waits.
        let input = scheduler.cold("#")
        let run = await scheduler.run(input.retry(Int.max))
        #expect(!run.issues.isEmpty, "\(run.events) \(input.subscriptions.count)")
        #expect(run.issues.first?.contains("did not settle") == true, "\(run.issues)")
        #expect(run.mismatch(expected: "") != nil, "issues fail the comparison")
    }
}

/// A deliberately wrong operator: emits every element twice.
private struct Doubling<Base: Publisher & Sendable>: Publisher, Sendable where Base.Element: Sendable {
    typealias Element = Base.Element
    typealias Failure = Base.Failure

    let base: Base

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator())
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var repeated: Element?

        mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(Failure) -> Element? {
            if let element = repeated.take() {
                return element
            }
            repeated = try await base.next(isolation: actor)
            return repeated
        }
    }
}

/// Where ``LeakyPrefix`` leaks the upstream iterators it should cancel.
private final class Leak: Sendable {
    /// An iterator kept alive, never used again.
    final class Kept: @unchecked Sendable {
        // @unchecked: the iterator is stored once and never touched again.
        let iterator: Any

        init(_ iterator: Any) {
            self.iterator = iterator
        }
    }

    let iterators = Locked<[Kept]>([])
}

/// A deliberately wrong prefix: ends after `count` elements but keeps its
/// upstream iterator alive instead of dropping (cancelling) it.
private struct LeakyPrefix<Base: Publisher & Sendable>: Publisher, Sendable where Base.Element: Sendable {
    typealias Element = Base.Element
    typealias Failure = Base.Failure

    let base: Base
    let count: Int
    let leak: Leak

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), remaining: count, leak: leak)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator?
        var remaining: Int
        let leak: Leak

        mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(Failure) -> Element? {
            guard remaining > 0, var iterator = base.take() else {
                return nil
            }
            let element = try await iterator.next(isolation: actor)
            remaining -= 1
            if remaining == 0 {
                let kept = Leak.Kept(iterator)
                leak.iterators.withLock { $0.append(kept) }
            } else {
                base = iterator
            }
            return element
        }
    }
}
