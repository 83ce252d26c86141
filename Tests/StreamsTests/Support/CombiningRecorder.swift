import Locking
import Streams

/// What a consumer saw: an element, the finish or the failure.
enum CombiningEvent<Element: Sendable & Equatable, Failure: Error & Equatable>: Equatable, Sendable {
    case value(Element)
    case finished
    case failed(Failure)
}

/// Consumes a publisher in its own task and records every event; a test
/// awaits a number of events (signalled, never polled) before it acts again.
final class CombiningRecorder<Element: Sendable & Equatable, Failure: Error & Equatable>: Sendable {
    typealias Event = CombiningEvent<Element, Failure>

    private struct Waiter {
        let count: Int
        let continuation: UnsafeContinuation<Void, Never>
    }

    private struct State {
        var events: [Event] = []
        var waiters: [Waiter] = []
    }

    private let state = Locked(State())
    private let task: Locked<Task<Void, Never>?> = Locked(nil)

    init<P: Publisher & Sendable>(_ publisher: P) where P.Element == Element, P.Failure == Failure {
        let handle = Task { [self] in
            var iterator = publisher.makeAsyncIterator()
            do throws(Failure) {
                while let element = try await iterator.next(isolation: nil) {
                    record(.value(element))
                }
                record(.finished)
            } catch {
                record(.failed(error))
            }
        }
        task.withLock { $0 = handle }
    }

    /// The events so far.
    var events: [Event] { state.withLock { $0.events } }

    /// The elements so far.
    var values: [Element] {
        events.compactMap { if case .value(let value) = $0 { value } else { nil } }
    }

    private func record(_ event: Event) {
        let ready = state.withLock { state -> [Waiter] in
            state.events.append(event)
            let count = state.events.count
            var ready: [Waiter] = []
            state.waiters.removeAll { waiter in
                guard waiter.count <= count else { return false }
                ready.append(waiter)
                return true
            }
            return ready
        }
        for waiter in ready {
            waiter.continuation.resume()
        }
    }

    /// Waits until at least `count` events were recorded.
    func waitForEvents(_ count: Int) async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.events.count >= count { return true }
                state.waiters.append(Waiter(count: count, continuation: continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Cancels the consuming task.
    func cancel() {
        task.withLock { $0 }?.cancel()
    }

    /// Waits until the consuming task ended and returns every event.
    func completion() async -> [Event] {
        await task.withLock { $0 }?.value
        return events
    }
}

/// A publisher whose iteration reports its start and its cancellation, and
/// otherwise waits forever: stands for upstream work that only
/// cancellation ends.
struct CombiningNeverPublisher<Element: Sendable, Failure: Error>: Publisher, Sendable {
    let started: PassthroughSubject<Void, Never>
    let cancelled: PassthroughSubject<Void, Never>
    /// Produced first, before waiting forever.
    let elements: [Element]
    /// Thrown instead of returning `nil` when the wait is cancelled.
    var failureOnCancel: Failure?

    init(
        _ elements: [Element] = [],
        started: PassthroughSubject<Void, Never> = .init(),
        cancelled: PassthroughSubject<Void, Never> = .init()
    ) {
        self.elements = elements
        self.started = started
        self.cancelled = cancelled
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(started: started, cancelled: cancelled, elements: elements[...], failureOnCancel: failureOnCancel)
    }

    struct Iterator: AsyncIteratorProtocol {
        let started: PassthroughSubject<Void, Never>
        let cancelled: PassthroughSubject<Void, Never>
        var elements: ArraySlice<Element>
        let failureOnCancel: Failure?
        /// Never sent to: waiting on it ends only by cancellation.
        let gate = PassthroughSubject<Void, Never>()

        mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(Failure) -> Element? {
            if let element = elements.popFirst() {
                return element
            }
            var waiter = gate.makeAsyncIterator()
            started.send(())
            _ = await waiter.next(isolation: actor)
            cancelled.send(())
            if let failureOnCancel {
                throw failureOnCancel
            }
            return nil
        }

        mutating func next() async throws(Failure) -> Element? {
            try await next(isolation: nil)
        }
    }
}

/// Makes never-ending upstreams and records when each one starts and when
/// each one is cancelled, so a test can await "n started" and "n
/// cancelled" without polling.
final class CombiningLifecycle: Sendable {
    private let startedSubject = PassthroughSubject<Void, Never>()
    private let cancelledSubject = PassthroughSubject<Void, Never>()
    private let startedCounter: CombiningRecorder<Int, Never>
    private let cancelledCounter: CombiningRecorder<Int, Never>

    init() {
        startedCounter = CombiningRecorder(startedSubject.subscribe().map { 0 })
        cancelledCounter = CombiningRecorder(cancelledSubject.subscribe().map { 0 })
    }

    /// An upstream that never produces, reporting its start and cancellation.
    func never<Element: Sendable, Failure: Error>(
        _ elements: [Element] = [Int](),
        failure: Failure.Type = Never.self
    ) -> CombiningNeverPublisher<Element, Failure> {
        CombiningNeverPublisher(elements, started: startedSubject, cancelled: cancelledSubject)
    }

    var startedCount: Int { startedCounter.events.count }
    var cancelledCount: Int { cancelledCounter.events.count }

    func waitForStarts(_ count: Int) async { await startedCounter.waitForEvents(count) }
    func waitForCancellations(_ count: Int) async { await cancelledCounter.waitForEvents(count) }
}

/// Drains an iterator in a task of its own.
func combiningDrain<Iterator: AsyncIteratorProtocol & SendableMetatype>(
    _ iterator: sending Iterator
) -> Task<Result<[Iterator.Element], Iterator.Failure>, Never> where Iterator.Element: Sendable {
    Task {
        var iterator = iterator
        var elements: [Iterator.Element] = []
        do throws(Iterator.Failure) {
            while let element = try await iterator.next(isolation: nil) {
                elements.append(element)
            }
            return .success(elements)
        } catch {
            return .failure(error)
        }
    }
}
