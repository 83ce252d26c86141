import Streams
import TelemetryTesting
import Testing

/// The lifecycle cases every element-wise operator shares, run on the
/// operator built over a subject (`onSubject`) and over a counting
/// synchronous upstream (`onProbe`).
struct MarbleLifecycle<OnSubject: Publisher & Sendable, OnProbe: Publisher> {
    let onSubject: @Sendable (SubjectSubscription<Int, TestError>) -> OnSubject
    let onProbe: (ProbePublisher<TestError>) -> OnProbe

    /// Cancelling the consumer ends it with `nil` and unsubscribes upstream.
    func cancellingTheConsumerEndsWithNil() async {
        let subject = PassthroughSubject<Int, TestError>()
        let values = onSubject(subject.subscribe())
        let consumer = Task { () -> Bool in
            var iterator = values.makeAsyncIterator()
            while (try? await iterator.next()) != nil {}
            return true
        }
        subject.send(1)
        await subject.waitForSuspendedConsumers(atLeast: 1)
        consumer.cancel()
        #expect(await consumer.value)
        #expect(subject.consumerCount == 0)
    }

    /// Iterating from an already cancelled task returns `nil` at once.
    func alreadyCancelledTaskReturnsNil() async {
        let subject = PassthroughSubject<Int, TestError>()
        let values = onSubject(subject.subscribe())
        subject.send(1)
        let count = await inCancelledTask { () -> Int in
            var iterator = values.makeAsyncIterator()
            var count = 0
            while (try? await iterator.next()) != nil { count += 1 }
            return count
        }
        #expect(count == 0)
    }

    /// Releasing the iterator after one element releases the upstream iterator.
    func droppingTheIteratorEarlyReleasesUpstream() async throws {
        let probe = Probe()
        do {
            var iterator = onProbe(ProbePublisher([1, 2, 3, 4], probe: probe)).makeAsyncIterator()
            #expect(try await iterator.next() != nil)
            #expect(probe.iteratorsReleased == 0)
        }
        #expect(probe.iteratorsReleased == 1)
    }

    /// After the end, `next` keeps returning `nil`, without pulling upstream.
    func callsAfterTheEndReturnNil() async throws {
        let probe = Probe()
        var finished = onProbe(ProbePublisher([], probe: probe)).makeAsyncIterator()
        #expect(try await finished.next() == nil)
        let calls = probe.nextCalls
        #expect(try await finished.next() == nil)
        #expect(probe.nextCalls == calls, "not pulled again after the end")
    }
}
