import Locking
public import Streams

/// An input of a ``TestScheduler``: a publisher whose events are scripted
/// on ticks, and which records when the code under test subscribes to it
/// and lets go of it.
///
/// Make one with ``TestScheduler/hot(_:)`` or ``TestScheduler/cold(_:)``
/// (or their typed and explicit-event forms). A *hot* input's events
/// happen at their ticks whoever listens: a subscriber receives the events
/// from the tick it subscribed on. A *cold* input starts its script afresh
/// for every subscription, tick 0 of the script being the tick of the
/// subscription.
///
/// ```swift
/// let scheduler = TestScheduler()
/// let input = scheduler.cold("a-b|")
/// let run = await scheduler.run(input.map { $0.uppercased() })
/// #expect(run.mismatch(expected: "A-B|") == nil)
/// #expect(input.subscriptionMarbles == ["^--!"])
/// ```
///
/// Each subscriber has its own unbounded buffer, so an input never drops
/// an element; what a subscriber has not taken when the run ends is
/// reported in ``TestRun/unpulled``.
public final class TestInput<Element: Sendable, Failure: Error>: Publisher, Sendable {
    struct State {
        var subscriptions: [InputSubscription<Element, Failure>] = []
    }

    let name: String
    /// The script's events by tick (hot: absolute; cold: from each subscription).
    let eventsByTick: [Int: [MarbleEvent<Element, Failure>]]
    /// The script's last tick.
    let lastTick: Int
    let isHot: Bool
    let core: SchedulerCore
    let state = Locked(State())
    /// The subject a hot input sends to; a cold input has one per subscription.
    let hotSubject: PassthroughSubject<Element, Failure>?

    init(name: String, events: [MarbleEvent<Element, Failure>], isHot: Bool, core: SchedulerCore) {
        self.name = name
        let negative = events.filter { $0.tick < 0 }
        if !negative.isEmpty {
            core.report(
                "\(name) has events at negative ticks, left out: \(negative.map(\.description).joined(separator: " "))")
        }
        eventsByTick = Dictionary(grouping: events.filter { $0.tick >= 0 }, by: \.tick)
        lastTick = eventsByTick.keys.max() ?? 0
        self.isHot = isHot
        self.core = core
        hotSubject = isHot ? PassthroughSubject() : nil
        if isHot {
            core.schedule(through: lastTick)
            let fed = core.lastFedTick
            let missed = eventsByTick.filter { $0.key <= fed }.values.joined().sorted { $0.tick < $1.tick }
            if !missed.isEmpty {
                core.report(
                    "\(name) was made after tick \(fed)'s inputs were sent: its events at those ticks are never "
                        + "sent: \(missed.map(\.description).joined(separator: " "))")
            }
        }
        core.register(
            feeder: { [weak self] tick in self?.feed(tick) },
            reporter: { [weak self] in self?.unpulled ?? [] }
        )
    }

    /// Every subscription so far, in the order they were made.
    public var subscriptions: [TestSubscription] {
        state.withLock { $0.subscriptions }.map(\.record)
    }

    /// Every subscription so far as a subscription marble (see
    /// ``TestSubscription``), in the order they were made.
    ///
    /// ```swift
    /// #expect(input.subscriptionMarbles == ["^---!"])
    /// ```
    public var subscriptionMarbles: [String] {
        subscriptions.map(\.description)
    }

    /// Makes an iterator: one subscription, recorded at the current tick.
    ///
    /// - Returns: An iterator over the input's events from now on.
    public func makeAsyncIterator() -> Iterator {
        let tick = core.currentTick
        let subject = hotSubject ?? PassthroughSubject<Element, Failure>()
        let subscription = InputSubscription(
            subject: subject, startTick: tick, core: core)
        let iterator = subject.makeAsyncIterator()
        state.withLock { $0.subscriptions.append(subscription) }
        core.touch()
        if !isHot {
            core.schedule(through: tick + lastTick)
            send(eventsByTick[0] ?? [], to: subscription)
        }
        return Iterator(base: iterator, token: SubscriptionToken(subscription))
    }

    /// Sends the events due at `tick`: a hot input's at that tick, each
    /// cold subscription's at that tick of its script (tick 0 was sent when
    /// it subscribed).
    private func feed(_ tick: Int) {
        let live = state.withLock { $0.subscriptions }.filter { $0.isOpen }
        if isHot {
            guard let due = eventsByTick[tick], let hotSubject else {
                return
            }
            for subscription in live {
                subscription.expect(due)
            }
            for event in due {
                send(event, to: hotSubject)
            }
        } else {
            for subscription in live where tick > subscription.startTick {
                send(eventsByTick[tick - subscription.startTick] ?? [], to: subscription)
            }
        }
    }

    private func send(_ due: [MarbleEvent<Element, Failure>], to subscription: InputSubscription<Element, Failure>) {
        guard !due.isEmpty else {
            return
        }
        subscription.expect(due)
        for event in due {
            send(event, to: subscription.subject)
        }
    }

    private func send(_ event: MarbleEvent<Element, Failure>, to subject: PassthroughSubject<Element, Failure>) {
        switch event.kind {
        case .value(let value): subject.send(value)
        case .finish: subject.finish()
        case .failure(let error): subject.fail(error)
        }
        core.touch()
    }

    /// Elements sent to a subscription still open that it never took, by
    /// subscription, for ``TestRun/unpulled``.
    var unpulled: [String] {
        state.withLock { $0.subscriptions }.enumerated().compactMap { index, subscription in
            let count = subscription.untaken
            guard count > 0 else {
                return nil
            }
            return "\(name) (subscription \(index), \(subscription.record)): \(count) element(s) sent but never pulled"
        }
    }

    /// The iterator of a ``TestInput``: one subscription.
    ///
    /// Dropping it ends the subscription at the current tick.
    public struct Iterator: AsyncIteratorProtocol {
        var base: SubjectIterator<Element, Failure>
        let token: SubscriptionToken<Element, Failure>

        /// Returns the next event of the input, waiting for its tick.
        ///
        /// - Parameter actor: The caller's isolation; the wait resumes on it.
        /// - Returns: The next element, or `nil` once the input finished or
        ///   the consuming task was cancelled.
        /// - Throws: The input's failure, once.
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Element? {
            let subscription = token.subscription
            subscription.core.touch()
            do {
                let element = try await base.next(isolation: actor)
                subscription.took(element != nil)
                return element
            } catch {
                subscription.end()
                throw error
            }
        }

        /// Returns the next event of the input.
        ///
        /// - Returns: The next element, or `nil` once the input ended.
        /// - Throws: The input's failure, once.
        public mutating func next() async throws(Failure) -> Element? {
            try await next(isolation: nil)
        }
    }
}

@available(*, unavailable)
extension TestInput.Iterator: Sendable {}

/// Owned by the iterator of one subscription: releasing the iterator ends
/// the subscription, if it did not end before.
final class SubscriptionToken<Element: Sendable, Failure: Error>: Sendable {
    let subscription: InputSubscription<Element, Failure>

    init(_ subscription: InputSubscription<Element, Failure>) {
        self.subscription = subscription
    }

    deinit {
        subscription.end()
    }
}

/// One subscription to a ``TestInput``: its record, the subject it reads,
/// and how many elements it was sent and took.
final class InputSubscription<Element: Sendable, Failure: Error>: Sendable {
    private struct State {
        var record: TestSubscription
        var sent = 0
        var taken = 0
    }

    let subject: PassthroughSubject<Element, Failure>
    let startTick: Int
    let core: SchedulerCore
    private let state: Locked<State>

    init(subject: PassthroughSubject<Element, Failure>, startTick: Int, core: SchedulerCore) {
        self.subject = subject
        self.startTick = startTick
        self.core = core
        state = Locked(State(record: TestSubscription(subscribedAt: startTick)))
    }

    var record: TestSubscription {
        state.withLock { $0.record }
    }

    var isOpen: Bool {
        state.withLock { $0.record.unsubscribedAt == nil }
    }

    var untaken: Int {
        state.withLock { $0.record.unsubscribedAt == nil ? $0.sent - $0.taken : 0 }
    }

    /// Counts the elements among `events` that are about to be sent.
    func expect(_ events: [MarbleEvent<Element, Failure>]) {
        let values = events.count { !$0.isTerminal }
        state.withLock { $0.sent += values }
    }

    /// The iterator returned: an element, or the end.
    func took(_ element: Bool) {
        if element {
            state.withLock { $0.taken += 1 }
            core.touch()
        } else {
            end()
        }
    }

    /// Ends the subscription at the current tick (not while the scheduler
    /// tears the run down: that is no unsubscription of the code under test).
    func end() {
        let tick = core.currentTick
        let tearingDown = core.isTearingDown
        state.withLock { state in
            guard state.record.unsubscribedAt == nil, !tearingDown else {
                return
            }
            state.record.unsubscribedAt = tick
        }
        core.touch()
    }
}
