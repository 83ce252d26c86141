import Locking
import Streams

/// Consumes the publisher under test for a ``TestScheduler`` and records
/// its events with the tick of the clock's `now`; tells the scheduler
/// whether the consumer waits in `next` and how much it did.
final class MarbleRecorder<Element: Sendable, Failure: Error>: Sendable {
    private struct State {
        var events: [MarbleEvent<Element, Failure>] = []
        var ended = false
        /// Whether the consumer is inside `next`, waiting for the pipeline.
        var waiting = false
        /// Counts every `next` call and return, for ``TestScheduler``.
        var activity = 0
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
        state.withLock { state in
            state.ended = true
            state.waiting = false
            state.activity += 1
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
        let ticks = clock.now.offset.wholeTicks(of: tick)
        state.withLock { state in
            state.events.append(MarbleEvent(kind, at: ticks))
            state.activity += 1
        }
    }
}
