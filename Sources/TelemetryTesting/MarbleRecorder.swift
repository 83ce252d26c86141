import Locking
import Streams

/// Consumes the publisher under test and records its events with the tick
/// of the clock's `now`; lets the driver wait until a number of events
/// arrived or the stream ended.
final class MarbleRecorder<Element: Sendable, Failure: Error>: Sendable {
    private struct Waiter {
        let id: Int
        /// Resume once this many events are recorded (or the stream ended).
        let count: Int
        let continuation: UnsafeContinuation<Void, Never>
    }

    private struct State {
        var events: [MarbleEvent<Element, Failure>] = []
        var ended = false
        /// Whether the consumer is inside `next`, waiting for the pipeline.
        var waiting = false
        /// Counts every `next` call and return, for ``TestScheduler``.
        var activity = 0
        var waiters: [Waiter] = []
        var nextID = 0

        mutating func satisfied() -> [Waiter] {
            var ready: [Waiter] = []
            waiters.removeAll { waiter in
                guard ended || events.count >= waiter.count else {
                    return false
                }
                ready.append(waiter)
                return true
            }
            return ready
        }
    }

    private let state = Locked(State())
    private let clock: ManualClock
    private let tick: Duration

    init(clock: ManualClock, tick: Duration) {
        self.clock = clock
        self.tick = tick
    }

    var events: [MarbleEvent<Element, Failure>] {
        state.withLock { $0.events }
    }

    /// Iterates the publisher to its end, recording every event; a `nil`
    /// caused by cancellation is not recorded as a finish. The iterator is
    /// released before the end is recorded, so what it cancels is seen
    /// before the stream counts as ended.
    func consume<P: Publisher>(_ publisher: P) async where P.Element == Element, P.Failure == Failure {
        if let end = await iterate(publisher) {
            record(end)
        }
        let ready = state.withLock { state in
            state.ended = true
            state.waiting = false
            state.activity += 1
            return state.satisfied()
        }
        for waiter in ready {
            waiter.continuation.resume()
        }
    }

    /// Records the elements; returns the end to record, if any.
    private func iterate<P: Publisher>(
        _ publisher: P
    ) async -> MarbleEvent<Element, Failure>.Kind? where P.Element == Element, P.Failure == Failure {
        var iterator = publisher.makeAsyncIterator()
        do throws(Failure) {
            while let value = try await pull(&iterator) {
                record(.value(value))
            }
            return Task.isCancelled ? nil : .finish
        } catch {
            return .failure(error)
        }
    }

    /// One `next`, marked as waiting while it runs.
    private func pull<I: AsyncIteratorProtocol>(_ iterator: inout I) async throws(Failure) -> Element?
    where I.Element == Element, I.Failure == Failure {
        setWaiting(true)
        defer { setWaiting(false) }
        return try await iterator.next(isolation: nil)
    }

    private func setWaiting(_ waiting: Bool) {
        state.withLock { state in
            state.waiting = waiting
            state.activity += 1
        }
    }

    /// Whether the consumer waits in `next` or the stream ended, and the
    /// activity count; what ``TestScheduler`` checks to tell the pipeline
    /// settled.
    var progress: (idle: Bool, ended: Bool, activity: Int) {
        state.withLock { ($0.waiting || $0.ended, $0.ended, $0.activity) }
    }

    private func record(_ kind: MarbleEvent<Element, Failure>.Kind) {
        let ticks = Int((clock.now.offset / tick).rounded(.down))
        let ready = state.withLock { state in
            state.events.append(MarbleEvent(kind, at: ticks))
            return state.satisfied()
        }
        for waiter in ready {
            waiter.continuation.resume()
        }
    }

    /// Waits until `count` events are recorded or the stream ended; returns
    /// early if the waiting task is cancelled.
    func wait(forCount count: Int) async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if Task.isCancelled || state.ended || state.events.count >= count {
                        return true
                    }
                    state.waiters.append(Waiter(id: id, count: count, continuation: continuation))
                    return false
                }
                if ready {
                    continuation.resume()
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    return nil
                }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }

    /// Waits until the stream ended.
    func waitForEnd() async {
        await wait(forCount: .max)
    }
}
