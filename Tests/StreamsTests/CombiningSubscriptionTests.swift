import Streams
import TelemetryTesting
import TestSupport
import Testing

/// When the combining operators subscribe to and let go of their upstreams,
/// checked with subscription marbles on a ``TestScheduler``.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct CombiningSubscriptionTests {
    @Test func mergeHoldsEachBaseUntilItFinishes() async {
        let scheduler = TestScheduler()
        let first = scheduler.hot("a-|")
        let second = scheduler.hot("-b--|")
        let run = await scheduler.run(first.merge(second))
        #expect(run.mismatch(expected: "ab--|") == nil, "\(run.diagram)")
        #expect(first.subscriptionMarbles == ["^-!"])
        #expect(second.subscriptionMarbles == ["^---!"])
    }

    @Test func combineLatestEndsWhenBothBasesFinished() async {
        let scheduler = TestScheduler()
        let first = scheduler.hot("a--b|")
        let second = scheduler.hot("-x----|")
        let run = await scheduler.run(first.combineLatest(second).map { $0 + $1 })
        #expect(run.mismatch(expected: "-(ax)-(bx)--|") == nil, "\(run.diagram)")
        #expect(first.subscriptionMarbles == ["^---!"])
        #expect(second.subscriptionMarbles == ["^-----!"])
    }

    @Test func zipCancelsTheOtherBaseOnceOneFinished() async {
        let scheduler = TestScheduler()
        let first = scheduler.hot("a|")
        let second = scheduler.hot("-x---y|")
        let run = await scheduler.run(first.zip(second).map { $0 + $1 })
        // `first` finished at tick 1, once `a` was paired with `x`: no pair can follow.
        #expect(run.mismatch(expected: "-[(ax)|]") == nil, "\(run.diagram)")
        #expect(first.subscriptionMarbles == ["^!"])
        #expect(second.subscriptionMarbles == ["^!"])
    }

    @Test func flatMapLatestCancelsTheSupersededInnerAtTheNewElement() async {
        let scheduler = TestScheduler()
        let outer = scheduler.hot("a--b|")
        let inner = scheduler.cold("x-y-z|")
        let run = await scheduler.run(outer.flatMapLatest { _ in inner })
        #expect(run.mismatch(expected: "x-yx-y-z|") == nil, "\(run.diagram)")
        #expect(inner.subscriptionMarbles == ["^--!", "---^----!"])
        #expect(outer.subscriptionMarbles == ["^---!"])
    }
}
