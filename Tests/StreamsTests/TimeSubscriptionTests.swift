import Streams
import TelemetryTesting
import TestSupport
import Testing

/// When the time-based operators subscribe to and let go of their upstream,
/// checked with subscription marbles on a ``TestScheduler``: the end of the
/// upstream, a failure, a timeout, a downstream that stops early and a
/// cancelled consumer each end the upstream subscription at their tick.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct TimeSubscriptionTests {
    @Test func debounceHoldsItsUpstreamUntilTheUpstreamFinishes() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b----c--|")
        let run = await scheduler.run(input.debounce(for: scheduler.ticks(3), clock: scheduler.clock))
        #expect(run.mismatch(expected: "-----b----[c|]") == nil, "\(run.diagram)")
        #expect(input.subscriptionMarbles == ["^---------!"])
    }

    @Test func aTimeoutCancelsTheUpstreamAtTheTimeout() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b-----c|")
        let run = await scheduler.run(input.timeout(scheduler.ticks(3), clock: scheduler.clock))
        #expect(run.mismatch(expected: "a-b--^") == nil, "\(run.diagram)")
        #expect(input.subscriptionMarbles == ["^----!"])
    }

    @Test func delayLetsGoOfTheUpstreamWhenItFinishesAndDelaysTheFinish() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b|")
        let run = await scheduler.run(input.delay(scheduler.ticks(2), clock: scheduler.clock))
        #expect(run.mismatch(expected: "--a-[b|]") == nil, "\(run.diagram)")
        #expect(input.subscriptionMarbles == ["^--!"])
    }

    @Test func delayPassesAFailureAtOnce() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a--b^")
        let run = await scheduler.run(input.delay(scheduler.ticks(2), clock: scheduler.clock))
        #expect(run.mismatch(expected: "--a-^") == nil, "\(run.diagram)")
        #expect(input.subscriptionMarbles == ["^---!"])
    }

    @Test func throttleSampleAndChunkedEndWithTheirUpstream() async {
        let throttling = TestScheduler()
        let throttled = throttling.hot("ab|")
        let throttleRun = await throttling.run(throttled.throttle(for: throttling.ticks(3), clock: throttling.clock))
        #expect(throttleRun.mismatch(expected: "a-[b|]") == nil, "\(throttleRun.diagram)")
        #expect(throttled.subscriptionMarbles == ["^-!"])

        let sampling = TestScheduler()
        let sampled = sampling.hot("-a|")
        let sampleRun = await sampling.run(sampled.sample(every: sampling.ticks(3), clock: sampling.clock))
        #expect(sampleRun.mismatch(expected: "--[a|]") == nil, "\(sampleRun.diagram)")
        #expect(sampled.subscriptionMarbles == ["^-!"])

        let chunking = TestScheduler()
        let chunked = chunking.hot("ab|")
        let chunkRun = await chunking.run(
            chunked.chunked(every: chunking.ticks(3), clock: chunking.clock).map { $0.joined() })
        #expect(chunkRun.mismatch(expected: "--[(ab)|]") == nil, "\(chunkRun.diagram)")
        #expect(chunked.subscriptionMarbles == ["^-!"])
    }

    @Test func aDownstreamThatStopsEarlyCancelsTheUpstreamAtOnce() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b----c--|")
        let run = await scheduler.run(input.debounce(for: scheduler.ticks(3), clock: scheduler.clock).prefix(1))
        #expect(run.mismatch(expected: "-----[b|]") == nil, "\(run.diagram)")
        #expect(input.subscriptionMarbles == ["^----!"])
        #expect(scheduler.clock.sleeperCount == 0, "the timer is cancelled too")
    }

    @Test func cancellingTheConsumerCancelsTheUpstreamAtThatTick() async {
        let scheduler = TestScheduler()
        let input = scheduler.hot("a-b----c--|")
        let run = await scheduler.run(
            input.debounce(for: scheduler.ticks(3), clock: scheduler.clock), cancelAt: 3)
        #expect(run.mismatch(expected: "") == nil, "\(run.diagram)")
        #expect(input.subscriptionMarbles == ["^--!"])
    }

    @Test func aColdInputIsResubscribedByRetryAtTheTickOfTheFailure() async {
        let scheduler = TestScheduler()
        let input = scheduler.cold("a-#")
        let run = await scheduler.run(input.retry(1).debounce(for: scheduler.ticks(1), clock: scheduler.clock))
        #expect(run.mismatch(expected: "-a-a^") == nil, "\(run.diagram)")
        #expect(input.subscriptionMarbles == ["^-!", "--^-!"])
    }
}
