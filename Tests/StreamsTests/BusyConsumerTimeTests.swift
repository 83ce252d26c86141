import TelemetryTesting
import TestSupport
import Testing

@testable import Streams

/// The time operators while their consumer is busy: the timer task runs only
/// while the consumer waits, so a deadline that passes while it is busy is
/// fired by whoever comes next (an upstream event or the consumer's `next`).
/// The consumer must see what it would have seen had the timer fired on time.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct BusyConsumerTimeTests {
    /// A consumer that calls `next` once each time `step` is yielded to and
    /// reports each result; between calls it is busy.
    struct Gated {
        let step: AsyncStream<Void>.Continuation
        var results: AsyncStream<Result<Int?, TestError>>.Iterator

        init<P: Publisher & Sendable>(_ values: P) where P.AsyncIterator == OperatorIterator<Int, TestError> {
            let (gate, step) = AsyncStream<Void>.makeStream()
            let (results, report) = AsyncStream<Result<Int?, TestError>>.makeStream()
            Task {
                var iterator = values.makeAsyncIterator()
                for await _ in gate {
                    do throws(TestError) {
                        report.yield(.success(try await iterator.next()))
                    } catch {
                        report.yield(.failure(error))
                    }
                }
            }
            self.step = step
            self.results = results.makeAsyncIterator()
        }

        /// Lets the consumer make one `next` call and returns its result.
        mutating func next() async -> Result<Int?, TestError>? {
            step.yield()
            return await results.next()
        }
    }

    /// A throttle window that ended while the consumer was busy emits its
    /// held element before an element that arrived after the window ended,
    /// and that element opens the next window.
    @Test func throttleWindowEndingWhileBusyEmitsTheHeldElementFirst() async throws {
        let subject = PassthroughSubject<Int, TestError>()
        let clock = ManualClock()
        var consumer = Gated(subject.subscribe().throttle(for: .seconds(3), clock: clock))
        subject.send(1)
        #expect(try await consumer.next()?.get() == 1)
        // Busy: 2 is held; the window ends at 3 with no timer running.
        subject.send(2)
        await subject.waitForSuspendedConsumers(atLeast: 1)
        #expect(clock.sleeperCount == 0, "no timer runs while the consumer is busy")
        await clock.advance(by: .seconds(4))
        // 3 arrives at 4: the window ended at 3, so 2 comes out first (opening
        // a window to 6), then 3 is held until 6.
        subject.send(3)
        await subject.waitForSuspendedConsumers(atLeast: 1)
        #expect(try await consumer.next()?.get() == 2)
        consumer.step.yield()
        await clock.waitForSleepers(atLeast: 1)
        #expect(clock.nextDeadline == ManualClock.Instant(offset: .seconds(6)))
        await clock.advance(to: ManualClock.Instant(offset: .seconds(6)))
        #expect(try await consumer.results.next()?.get() == 3)
    }

    /// A 2 s debounce of a subject whose first element (1, sent at 0) the
    /// consumer received at 2, on the timer; the consumer is busy now.
    static func debouncedPastTheFirstElement() async throws -> (PassthroughSubject<Int, TestError>, ManualClock, Gated)
    {
        let subject = PassthroughSubject<Int, TestError>()
        let clock = ManualClock()
        var consumer = Gated(subject.subscribe().debounce(for: .seconds(2), clock: clock))
        subject.send(1)
        consumer.step.yield()
        await clock.waitForSleepers(atLeast: 1)
        await clock.advance(by: .seconds(2))
        #expect(try await consumer.results.next()?.get() == 1)
        return (subject, clock, consumer)
    }

    /// A debounced element whose deadline passed while the consumer was busy
    /// comes out at the consumer's next call, without the timer; a later
    /// element waits for its own deadline.
    @Test func debounceDeadlinePassedWhileBusyIsEmittedAtTheNextCall() async throws {
        let (subject, clock, gated) = try await Self.debouncedPastTheFirstElement()
        var consumer = gated
        // Busy: 2 arrives at 2 and its deadline (4) passes with no timer running.
        subject.send(2)
        await subject.waitForSuspendedConsumers(atLeast: 1)
        #expect(clock.sleeperCount == 0, "no timer runs while the consumer is busy")
        await clock.advance(by: .seconds(5))
        #expect(try await consumer.next()?.get() == 2)
        // 3 arrives at 7 and waits for its own deadline, 9.
        subject.send(3)
        await subject.waitForSuspendedConsumers(atLeast: 1)
        consumer.step.yield()
        await clock.waitForSleepers(atLeast: 1)
        #expect(clock.nextDeadline == ManualClock.Instant(offset: .seconds(9)))
        await clock.advance(by: .seconds(2))
        #expect(try await consumer.results.next()?.get() == 3)
    }

    /// A debounced element whose deadline passed while the consumer was busy
    /// comes out before an upstream failure that arrived after that
    /// deadline; the failure follows, then the end.
    @Test func debounceDeadlinePassedBeforeAFailureIsEmittedFirst() async throws {
        let (subject, clock, gated) = try await Self.debouncedPastTheFirstElement()
        var consumer = gated
        subject.send(2)
        await subject.waitForSuspendedConsumers(atLeast: 1)
        await clock.advance(by: .seconds(3))
        subject.fail(.upstream)
        #expect(try await consumer.next()?.get() == 2)
        #expect(await consumer.next() == .failure(.upstream))
        #expect(await consumer.next() == .success(nil))
    }
}
