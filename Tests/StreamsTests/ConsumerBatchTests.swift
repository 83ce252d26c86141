import Streams
import TestSupport
import Testing

/// The consumer-side batch: a subject's unbounded consumer and the time
/// operators' iterator take every element ready in one go. Nothing a
/// consumer sees changes: order, the end after the buffer, the failure,
/// cancellation at the next `next()`, and a bounded buffer's limit.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct ConsumerBatchTests {
    @Test func aSubjectBurstArrivesInOrderThenTheFinish() async {
        let subject = PassthroughSubject<Int, Never>()
        let values = subject.subscribe()
        for value in 0..<1000 { subject.send(value) }
        subject.finish()
        #expect(await collect(values) == Array(0..<1000))
    }

    @Test func aSubjectBurstArrivesBeforeTheFailure() async {
        let subject = PassthroughSubject<Int, TestError>()
        var iterator = subject.makeAsyncIterator()
        for value in 0..<100 { subject.send(value) }
        subject.fail(.upstream)
        var received: [Int] = []
        do {
            while let value = try await iterator.next() { received.append(value) }
            Issue.record("no failure")
        } catch {
            #expect(error == .upstream)
        }
        #expect(received == Array(0..<100))
        let after = try? await iterator.next()
        #expect(after == .some(nil), "nil after the failure")
    }

    @Test func cancellingASubjectConsumerDiscardsWhatItTookInOneGo() async {
        let subject = PassthroughSubject<Int, Never>()
        let values = subject.subscribe()
        for value in 0..<100 { subject.send(value) }
        #expect(await Self.twoThenCancelled(values) == [0, 1, nil, nil])
        #expect(subject.consumerCount == 0, "the cancelled consumer is unsubscribed")
        #expect(subject.send(100) == .noConsumers)
    }

    @Test func aBoundedSubjectBufferKeepsItsLimitAgainstWhatTheConsumerHasNotTaken() async {
        // bufferingNewest(3): 0…9 leave 7, 8, 9. The consumer takes 7; the
        // buffer holds 8, 9, and 10, 11 push 8 out. Taking the whole buffer
        // at 7 would have made room and kept 8.
        let subject = PassthroughSubject<Int, Never>(bufferingPolicy: .bufferingNewest(3))
        var iterator = subject.makeAsyncIterator()
        for value in 0..<10 { subject.send(value) }
        #expect(await iterator.next() == 7)
        subject.send(10)
        subject.send(11)
        subject.finish()
        var rest: [Int] = []
        while let value = await iterator.next() { rest.append(value) }
        #expect(rest == [9, 10, 11])
        #expect(subject.droppedCount == 8)
    }

    @Test func zeroIntervalTimeOperatorsEmitEveryElementOfASynchronousUpstream() async {
        let elements = Array(0..<5000)
        #expect(await collect(ProbePublisher<Never>(elements).throttle(for: .zero)) == elements)
        #expect(await collect(ProbePublisher<Never>(elements).debounce(for: .zero)) == elements)
    }

    @Test func cancellingATimeOperatorsConsumerEndsItAtTheNextNext() async {
        let probe = Probe()
        let throttled = ProbePublisher<Never>(Array(0..<10_000), probe: probe).throttle(for: .zero)
        #expect(await Self.twoThenCancelled(throttled) == [0, 1, nil, nil])
        // The work behind it stops: the upstream iterator is released.
        let deadline = ContinuousClock.now + .seconds(30)
        while probe.iteratorsReleased == 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
        #expect(probe.counts.iteratorsMade == 1 && probe.iteratorsReleased == 1)
    }

    /// What a consumer gets from two `next()` calls, then two more after its task cancelled itself.
    private static func twoThenCancelled<S: AsyncSequence & Sendable>(_ sequence: S) async -> [Int?]
    where S.Element == Int, S.Failure == Never {
        await Task {
            var iterator = sequence.makeAsyncIterator()
            var received: [Int?] = [try? await iterator.next(), try? await iterator.next()]
            withUnsafeCurrentTask { $0?.cancel() }
            received.append(try? await iterator.next())
            received.append(try? await iterator.next())
            return received
        }.value
    }

    @Test @MainActor func aMainActorConsumerCallingNextWithoutIsolationGetsEveryElement() async {
        let subject = PassthroughSubject<Int, Never>()
        var iterator = subject.makeAsyncIterator()
        for value in 0..<100 { subject.send(value) }
        subject.finish()
        var received: [Int] = []
        while let value = await iterator.next() {
            MainActor.assertIsolated()
            received.append(value)
        }
        #expect(received == Array(0..<100))
    }
}
