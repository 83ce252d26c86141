import Locking
import Streams

/// A clock whose time moves only when a test advances it.
///
/// Pass it wherever a pipeline takes a `Clock`, then drive time from the
/// test: wait until the code under test is asleep on the clock with
/// ``waitForSleepers(atLeast:)``, then move time with ``advance(to:)`` or
/// ``advance(by:)``. Nothing ever sleeps on the real clock, so tests are fast
/// and deterministic.
///
/// ```swift
/// let clock = ManualClock()
/// let ticker = Task {
///     try await clock.sleep(for: .seconds(5))
///     return clock.now
/// }
/// await clock.waitForSleepers(atLeast: 1)   // the task is asleep now
/// await clock.advance(by: .seconds(5))      // wakes it, at exactly 5 s
/// #expect(try await ticker.value == ManualClock.Instant(offset: .seconds(5)))
/// ```
///
/// **What `advance` guarantees.** It wakes the sleepers whose deadline is at
/// or before the target one at a time, in deadline order (ties in the order
/// they went to sleep). Before waking each one it sets ``now`` to that
/// sleeper's deadline; after waking it, it waits until the woken task is
/// running again (its `sleep` call is returning into the task) before it
/// moves on. It does not wait for what the woken task does after that: that
/// work runs concurrently with the rest of the advance and may already see a
/// later ``now``. (A task isolated to an actor that calls `sleep` on a
/// `ManualClock` value directly, not through a generic `Clock`, runs its
/// work up to its next suspension before any other sleeper woken onto the
/// same actor, since `sleep` runs on the caller's isolation.) When woken
/// work must see its own instant, or finish, before time moves on, advance
/// to one instant at a time and await that work's effect in between: the
/// element it emits, or its next sleep with ``waitForSleepers(atLeast:)``. A sleeper that registers during an
/// advance with a deadline at or before the target is woken by that same
/// advance, in order; once the last due sleeper is woken, ``now`` becomes
/// the target in the same step, so a sleep that registers later with a
/// deadline up to the target returns at once. When `advance` returns,
/// ``now`` is the target (or later, if another advance moved it further).
///
/// **Sleeping.** A `sleep` whose deadline is not after ``now`` returns at
/// once. Cancelling a sleeping task removes its sleeper and makes `sleep`
/// throw `CancellationError`; so does sleeping from an already cancelled
/// task.
///
/// The clock is a reference type: copies share the same time and sleepers.
/// All methods are safe to call from any task.
public final class ManualClock: Clock, Sendable {
    /// The clock's durations: standard `Swift.Duration`.
    public typealias Duration = Swift.Duration

    /// A point in a ``ManualClock``'s time: an offset from the clock's zero.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The duration since the clock's zero instant.
        public var offset: Swift.Duration

        /// Creates the instant at `offset` after zero.
        ///
        /// - Parameter offset: The duration since the zero instant.
        public init(offset: Swift.Duration) {
            self.offset = offset
        }

        /// The zero instant, where a clock starts by default.
        public static let zero = Instant(offset: .zero)

        /// The instant `duration` after this one.
        ///
        /// - Parameter duration: How far to move; may be negative.
        /// - Returns: The moved instant.
        public func advanced(by duration: Swift.Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The duration from this instant to `other`.
        ///
        /// - Parameter other: The later (or earlier) instant.
        /// - Returns: `other.offset - offset`.
        public func duration(to other: Instant) -> Swift.Duration {
            other.offset - offset
        }

        /// Whether `lhs` is before `rhs`.
        ///
        /// - Returns: `true` when `lhs.offset < rhs.offset`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }

        /// The instant `rhs` after `lhs`.
        ///
        /// - Returns: `lhs.advanced(by: rhs)`.
        public static func + (lhs: Instant, rhs: Swift.Duration) -> Instant {
            lhs.advanced(by: rhs)
        }

        /// The instant `rhs` before `lhs`.
        ///
        /// - Returns: `lhs.advanced(by: .zero - rhs)`.
        public static func - (lhs: Instant, rhs: Swift.Duration) -> Instant {
            Instant(offset: lhs.offset - rhs)
        }

        /// The duration from `rhs` to `lhs`.
        ///
        /// - Returns: `rhs.duration(to: lhs)`.
        public static func - (lhs: Instant, rhs: Instant) -> Swift.Duration {
            lhs.offset - rhs.offset
        }

        /// The offset from zero, for example `"2.5 seconds"`.
        public var description: String {
            "\(offset)"
        }
    }

    private typealias Acknowledgement = UnsafeContinuation<Void, Never>
    private typealias SleeperContinuation = UnsafeContinuation<Acknowledgement?, any Error>

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        /// Resumed with the acknowledgement to send once the task runs again,
        /// or with `CancellationError`.
        let continuation: SleeperContinuation
    }

    private struct Waiter {
        let id: Int
        let count: Int
        let continuation: UnsafeContinuation<Void, Never>
    }

    private struct State {
        var now: Instant
        var nextID = 0
        var sleepers: [Sleeper] = []
        var waiters: [Waiter] = []
        /// Counts every change of the sleepers: registered, woken, cancelled.
        var activity = 0

        mutating func makeID() -> Int {
            defer { nextID += 1 }
            return nextID
        }

        /// Removes and returns the waiters satisfied by the current sleeper count.
        mutating func satisfiedWaiters() -> [Waiter] {
            guard waiters.contains(where: { $0.count <= sleepers.count }) else {
                return []
            }
            var satisfied: [Waiter] = []
            waiters.removeAll { waiter in
                guard waiter.count <= sleepers.count else {
                    return false
                }
                satisfied.append(waiter)
                return true
            }
            return satisfied
        }

        /// Removes and returns the earliest sleeper due at or before
        /// `target` (before it, unless `inclusive`), moving `now` to its
        /// deadline; when none is due, moves `now` to `target` and returns
        /// `nil`.
        mutating func popDueSleeper(until target: Instant, inclusive: Bool = true) -> Sleeper? {
            var best: Int?
            for index in sleepers.indices
            where sleepers[index].deadline < target || (inclusive && sleepers[index].deadline == target) {
                if let current = best {
                    let (a, b) = (sleepers[index], sleepers[current])
                    if a.deadline < b.deadline || (a.deadline == b.deadline && a.id < b.id) {
                        best = index
                    }
                } else {
                    best = index
                }
            }
            guard let best else {
                // Nothing left to wake: reach the target in the same critical
                // section, so a sleeper registering from now on with a
                // deadline up to the target finds it due at once.
                if now < target {
                    now = target
                }
                return nil
            }
            let sleeper = sleepers.remove(at: best)
            activity += 1
            if now < sleeper.deadline {
                now = sleeper.deadline
            }
            return sleeper
        }
    }

    private let state: Locked<State>

    /// Creates a manual clock.
    ///
    /// - Parameter now: The clock's initial time; ``Instant/zero`` by default.
    public init(now: Instant = .zero) {
        state = Locked(State(now: now))
    }

    /// The clock's current time; it changes only through ``advance(to:)`` and
    /// ``advance(by:)``.
    public var now: Instant {
        state.withLock { $0.now }
    }

    /// The smallest duration the clock can measure: zero, since a manual
    /// clock is exact.
    public var minimumResolution: Swift.Duration {
        .zero
    }

    /// The number of tasks sleeping on the clock now.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// The earliest deadline among the sleepers, or `nil` when nobody sleeps.
    public var nextDeadline: Instant? {
        state.withLock { $0.sleepers.map(\.deadline).min() }
    }

    /// Suspends until the clock is advanced to or past `deadline`.
    ///
    /// Returns at once if `deadline` is not after ``now``.
    ///
    /// - Parameters:
    ///   - deadline: The instant to wake at.
    ///   - tolerance: Ignored; a manual clock wakes sleepers exactly.
    /// - Throws: `CancellationError` if the task is cancelled before or while
    ///   it sleeps; the sleeper is removed.
    public nonisolated(nonsending) func sleep(
        until deadline: Instant,
        tolerance: Swift.Duration? = nil
    ) async throws {
        let id = state.withLock { $0.makeID() }
        let acknowledgement = try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: SleeperContinuation) in
                enum Outcome {
                    case cancelled
                    case due
                    case sleeping([Waiter])
                }
                let outcome = state.withLock { state -> Outcome in
                    // Checked under the lock: a cancellation handler that runs
                    // later will find the sleeper registered.
                    if Task.isCancelled {
                        return .cancelled
                    }
                    if deadline <= state.now {
                        return .due
                    }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    state.activity += 1
                    return .sleeping(state.satisfiedWaiters())
                }
                switch outcome {
                case .cancelled:
                    continuation.resume(throwing: CancellationError())
                case .due:
                    continuation.resume(returning: nil)
                case .sleeping(let waiters):
                    for waiter in waiters {
                        waiter.continuation.resume()
                    }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    return nil
                }
                state.activity += 1
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        // Tell the advancing task that this task runs again.
        if let acknowledgement {
            state.withLock { $0.activity += 1 }
            acknowledgement.resume()
        }
    }

    /// Waits until at least `count` tasks are sleeping on the clock.
    ///
    /// Use it before ``advance(to:)`` so the code under test has reached its
    /// sleep; it is signalled by each registration, without polling or
    /// yielding. Returns at once if enough sleepers are registered already,
    /// and early if the waiting task is cancelled.
    ///
    /// ```swift
    /// await clock.waitForSleepers(atLeast: 2)
    /// await clock.advance(by: .milliseconds(100))
    /// ```
    ///
    /// - Parameter count: The number of sleepers to wait for.
    public func waitForSleepers(atLeast count: Int) async {
        let id = state.withLock { $0.makeID() }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if Task.isCancelled || state.sleepers.count >= count {
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

    /// Moves time forward to `deadline`, waking the sleepers due on the way in
    /// deadline order.
    ///
    /// See the type's documentation for exactly what is guaranteed about the
    /// woken tasks. Advancing to an instant not after ``now`` wakes only
    /// sleepers already due and leaves ``now`` unchanged; time never moves
    /// backwards.
    ///
    /// - Parameter deadline: The instant to move to.
    public func advance(to deadline: Instant) async {
        while let sleeper = state.withLock({ $0.popDueSleeper(until: deadline) }) {
            await withUnsafeContinuation { (acknowledgement: Acknowledgement) in
                sleeper.continuation.resume(returning: acknowledgement)
            }
        }
    }

    /// Moves time forward to `deadline`, waking only the sleepers due
    /// strictly before it (in deadline order, as ``advance(to:)``); the
    /// sleepers due exactly at `deadline` stay asleep until an
    /// ``advance(to:)``. ``TestScheduler`` uses it to deliver a tick's
    /// inputs before the tick's timers fire.
    ///
    /// - Parameter deadline: The instant to move to.
    package func advance(before deadline: Instant) async {
        while let sleeper = state.withLock({ $0.popDueSleeper(until: deadline, inclusive: false) }) {
            await withUnsafeContinuation { (acknowledgement: Acknowledgement) in
                sleeper.continuation.resume(returning: acknowledgement)
            }
        }
    }

    /// A count of every change of the sleepers (registered, woken, running
    /// again, cancelled); ``TestScheduler`` watches it to tell when the
    /// code under test has settled.
    package var activity: Int {
        state.withLock { $0.activity }
    }

    /// Moves time forward by `duration`, waking the sleepers due on the way in
    /// deadline order.
    ///
    /// - Parameter duration: How far to move from ``now``; must not be negative.
    public func advance(by duration: Swift.Duration) async {
        precondition(duration >= .zero, "ManualClock cannot move backwards (advance(by: \(duration)))")
        await advance(to: now.advanced(by: duration))
    }
}
