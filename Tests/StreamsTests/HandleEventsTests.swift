import Locking
import Streams
import TelemetryTesting
import TestSupport
import Testing

/// Records the side effects `handleEvents` runs.
final class MarbleEventLog: Sendable {
    private let entries = Locked<[String]>([])
    var all: [String] { entries.withLock { $0 } }
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
}

extension Publisher where Element == Int, Failure == TestError {
    func logged(to log: MarbleEventLog) -> HandleEventsPublisher<Self> {
        handleEvents(
            receiveElement: { log.append("element \($0)") },
            receiveFinish: { log.append("finish") },
            receiveFailure: { log.append("failure \($0)") },
            receiveCancel: { log.append("cancel") }
        )
    }
}

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct HandleEventsTests {
    let lifecycle = MarbleLifecycle(onSubject: { $0.handleEvents() }, onProbe: { $0.handleEvents() })

    @Test func passesEventsThroughUnchangedAtTheirInstants() async {
        let log = MarbleEventLog()
        let result = await Marble.validate("a-b|", expected: "a-b|") { input, _ in
            input.handleEvents(receiveElement: { log.append($0) }, receiveFinish: { log.append("|") })
        }
        #expect(result.actual == result.expected, "\(result)")
        #expect(log.all == ["a", "b", "|"])
    }

    @Test func reportsElementsAndTheFinish() async {
        let log = MarbleEventLog()
        _ = await collect(ProbePublisher<TestError>([1, 2]).logged(to: log))
        #expect(log.all == ["element 1", "element 2", "finish"])
    }

    @Test func reportsAFailureOnceAndNoCancel() async throws {
        let log = MarbleEventLog()
        do {
            var iterator = ProbePublisher<TestError>([1], ending: .fail(.upstream)).logged(to: log).makeAsyncIterator()
            #expect(try await iterator.next() == 1)
            await #expect(throws: TestError.upstream) { try await iterator.next() }
            #expect(try await iterator.next() == nil)
        }
        #expect(log.all == ["element 1", "failure upstream"])
    }

    @Test func reportsCancelWhenTheIteratorIsDroppedEarly() async throws {
        let log = MarbleEventLog()
        do {
            var iterator = ProbePublisher<TestError>([1, 2]).logged(to: log).makeAsyncIterator()
            #expect(try await iterator.next() == 1)
        }
        #expect(log.all == ["element 1", "cancel"])
    }

    @Test func reportsCancelWhenTheConsumingTaskIsCancelled() async {
        let log = MarbleEventLog()
        let subject = PassthroughSubject<Int, TestError>()
        let values = subject.subscribe().logged(to: log)
        let consumer = Task { await collect(values) }
        subject.send(1)
        await subject.waitForSuspendedConsumers(atLeast: 1)
        consumer.cancel()
        _ = await consumer.value
        #expect(log.all == ["element 1", "cancel"])
    }

    @Test func emptyUpstreamReportsOnlyTheFinish() async {
        let log = MarbleEventLog()
        _ = await collect(ProbePublisher<TestError>([]).logged(to: log))
        #expect(log.all == ["finish"])
    }

    @Test func cancellingTheConsumerEndsWithNil() async { await lifecycle.cancellingTheConsumerEndsWithNil() }
    @Test func startingFromAnAlreadyCancelledTaskReturnsNil() async { await lifecycle.alreadyCancelledTaskReturnsNil() }
    @Test func droppingTheIteratorEarlyReleasesUpstream() async throws {
        try await lifecycle.droppingTheIteratorEarlyReleasesUpstream()
    }
    @Test func callsAfterTheEndReturnNil() async throws { try await lifecycle.callsAfterTheEndReturnNil() }
}
