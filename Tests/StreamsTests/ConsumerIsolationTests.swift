import Dispatch
import Locking
import Streams
import TestSupport
import Testing

/// A consumer that has to wait for an element registers its continuation on
/// its own actor. The consumer runs on the main actor with a task executor
/// preference that counts jobs: nonisolated code of the consumer's task runs
/// there. The upstreams sleep before each element, so the consumer waits for
/// every one; a continuation resumed from another thread costs one job there
/// before the task returns to the main actor (the runtime's doing: a plain
/// `withUnsafeContinuation` on the main actor measures the same), so the
/// bound is one job per element plus entering and leaving. A storage whose
/// waiting closure ran nonisolated hopped off and back for every wait:
/// 42 jobs for 20 elements, where 22 are expected.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct ConsumerIsolationTests {
    static let count = 20

    @Test func aWaitingShareConsumerStaysOnTheMainActor() async {
        await Self.expectOnMainActor(SlowPublisher(Self.count).share(), receives: Array(0..<Self.count))
    }

    @Test func aWaitingZipConsumerStaysOnTheMainActor() async {
        await Self.expectOnMainActor(
            SlowPublisher(Self.count).zip(SlowPublisher(Self.count)).map { $0 + $1 },
            receives: (0..<Self.count).map { $0 * 2 })
    }

    @Test func aWaitingMergeConsumerStaysOnTheMainActor() async {
        await Self.expectOnMainActor(
            SlowPublisher(Self.count).merge(SlowPublisher(0)), receives: Array(0..<Self.count))
    }

    @Test func aWaitingDebounceConsumerStaysOnTheMainActor() async {
        await Self.expectOnMainActor(
            SlowPublisher(Self.count).debounce(for: .zero), receives: Array(0..<Self.count))
    }

    /// Drains `publisher` on the main actor under a counting executor
    /// preference: it must give `expected`, with at most one job per element
    /// (plus entering and leaving) off the main actor.
    static func expectOnMainActor<P: Publisher & Sendable>(
        _ publisher: P, receives expected: [Int], sourceLocation: SourceLocation = #_sourceLocation
    ) async where P.Element == Int, P.Failure == Never {
        let executor = CountingTaskExecutor()
        let received = await withTaskExecutorPreference(executor) { await drainOnMainActor(publisher) }
        #expect(received == expected, sourceLocation: sourceLocation)
        #expect(
            executor.jobs <= expected.count + 2, "jobs of the consumer's task off the main actor",
            sourceLocation: sourceLocation)
    }

    @MainActor
    static func drainOnMainActor<P: Publisher>(_ publisher: P) async -> [Int]
    where P.Element == Int, P.Failure == Never {
        var received: [Int] = []
        for await value in publisher {
            MainActor.assertIsolated()
            received.append(value)
        }
        return received
    }
}

/// 0, 1, … `count - 1`, each after a millisecond's sleep.
private struct SlowPublisher: Publisher, Sendable {
    typealias Element = Int
    typealias Failure = Never

    let count: Int

    init(_ count: Int) { self.count = count }

    struct Iterator: AsyncIteratorProtocol {
        let count: Int
        var next = 0

        mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Int? {
            guard next < count else { return nil }
            try? await Task.sleep(for: .milliseconds(1))
            defer { next += 1 }
            return next
        }

        mutating func next() async -> Int? { await next(isolation: nil) }
    }

    func makeAsyncIterator() -> Iterator { Iterator(count: count) }
}

/// Runs its jobs on a global queue and counts them.
private final class CountingTaskExecutor: TaskExecutor, Sendable {
    private let count = Locked(0)

    var jobs: Int { count.withLock { $0 } }

    func enqueue(_ job: consuming ExecutorJob) {
        count.withLock { $0 += 1 }
        let job = UnownedJob(job)
        DispatchQueue.global().async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
