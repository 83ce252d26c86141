import Streams
import TelemetryTesting
import Testing

/// The lifecycle cases every time-based operator shares: cancellation, an
/// already cancelled task, an iterator dropped early and calls after the
/// end. `make` builds the operator on a subscription of `Int`s and a clock.
struct TimeLifecycle<P: Publisher & Sendable> where P.Element: Sendable & Equatable {
    let make: @Sendable (SubjectSubscription<Int, TestError>, ManualClock) -> P

    /// Cancelling the consumer while it waits ends it with `nil` and cancels
    /// the upstream task and the timer at once.
    func cancellingTheConsumerStopsAllWork(sendFirst: Bool = true) async {
        let subject = PassthroughSubject<Int, TestError>()
        let clock = ManualClock()
        let values = make(subject.subscribe(), clock)
        let consumer = Task { await collect(values) }
        await subject.waitForSuspendedConsumers(atLeast: 1)
        if sendFirst {
            subject.send(1)
            await subject.waitForSuspendedConsumers(atLeast: 1)
        }
        consumer.cancel()
        let result = await consumer.value
        #expect(throws: Never.self) { try result.get() }
        #expect(subject.consumerCount == 0, "the upstream iteration is cancelled")
        #expect(clock.sleeperCount == 0, "the timer is cancelled")
    }

    /// Iterating from a task that is already cancelled returns `nil` at once
    /// and starts nothing.
    func alreadyCancelledTaskReturnsNil() async {
        let subject = PassthroughSubject<Int, TestError>()
        let clock = ManualClock()
        let values = make(subject.subscribe(), clock)
        subject.send(1)
        let result = await inCancelledTask { await collect(values) }
        #expect((try? result.get()) == [])
        #expect(clock.sleeperCount == 0)
    }

    /// Releasing the iterator before the end cancels the upstream task and
    /// the timer. `advance` is how far to move the clock for the first
    /// element to come out (nil when it comes out at once).
    func droppingTheIteratorEarlyStopsAllWork(advance: Duration?) async {
        let subject = PassthroughSubject<Int, TestError>()
        let clock = ManualClock()
        let values = make(subject.subscribe(), clock)
        subject.send(1)
        let consumer = Task { () -> P.Element? in
            var iterator = values.makeAsyncIterator()
            let first = try? await iterator.next()
            await subject.waitForSuspendedConsumers(atLeast: 1)
            return first
        }
        if let advance {
            await clock.waitForSleepers(atLeast: 1)
            await clock.advance(by: advance)
        }
        let first = await consumer.value
        #expect(first != nil)
        #expect(subject.consumerCount == 0, "the upstream iteration is cancelled with the iterator")
        #expect(clock.sleeperCount == 0, "the timer is cancelled with the iterator")
    }

    /// After the end, `next` keeps returning `nil`: after a finish and after
    /// a failure.
    func callsAfterTheEndReturnNil() async throws {
        let finished = PassthroughSubject<Int, TestError>()
        var iterator = make(finished.subscribe(), ManualClock()).makeAsyncIterator()
        finished.finish()
        #expect(try await iterator.next() == nil)
        #expect(try await iterator.next() == nil)

        let failed = PassthroughSubject<Int, TestError>()
        var failing = make(failed.subscribe(), ManualClock()).makeAsyncIterator()
        failed.fail(.upstream)
        await #expect(throws: (any Error).self) { try await failing.next() }
        #expect(try await failing.next() == nil)
        #expect(try await failing.next() == nil)
    }
}
