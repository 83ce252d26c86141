public import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A short busy-wait before a hand-off suspends, used where the wake-up
/// would be an executor hop: a consumer isolated to an actor (the main
/// actor above all) and the producer feeding it.
///
/// When a consumer on an actor suspends, the producer's resume enqueues a
/// job on that actor's executor, which wakes its thread; when a producer on
/// the cooperative pool suspends, the consumer's resume wakes a pool thread.
/// Each wake-up costs tens of microseconds on a loaded machine, far more
/// than the hand-off itself. So before suspending, each side watches this
/// counter for a bounded time (``limit``) and re-checks its
/// state under the lock when the other side changed something. Spinning
/// never decides anything: every decision is still the state machine's,
/// under the lock, and a side that runs out of budget suspends as it would
/// have without spinning.
///
/// The spin is only switched on (``enable()``) by a consumer that is
/// isolated to an actor. Nonisolated consumers and their producers share the
/// cooperative pool, where a suspension lets the same thread run the other
/// side at once and a spin would only hold a thread the other side needs.
/// On a machine with one processor there is nothing to wait for while
/// spinning, and the budget is zero.
///
/// The operators that use it bump the counter (``changed()``) after every
/// step the side watching it may be waiting for, one counter per direction:
/// share's consumers watch one bumped by an element published, an end or a
/// consumer gone; its upstream watches one bumped by an element taken or a
/// consumer parked or gone. A watcher only goes to the lock when its own
/// counter moves, not on every other side's step. The merge family (merge
/// and the flat maps) has one counter, for its consumer, bumped by every
/// buffered delivery and every end; its producers never spin. The bump
/// costs one atomic load while the spin is off.
@usableFromInline
final class HandOffSpin: Sendable {
    @usableFromInline let version = Atomic<UInt>(0)
    @usableFromInline let enabled = Atomic<Bool>(false)

    /// How long a side spins before it suspends, in nanoseconds: longer
    /// than a wake-up of a sleeping thread, so that a side that suspended
    /// once finds the other spinning when it runs again; zero on one
    /// processor.
    @usableFromInline static let limit: Int64 = {
        #if canImport(Glibc)
        return sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 ? 50_000 : 0
        #else
        return 0
        #endif
    }()

    /// One side's spin: when it started (read from the clock only once the
    /// first reads found nothing), and how many checks found nothing.
    @usableFromInline
    struct Allowance {
        @usableFromInline var started: Int64 = 0
        @usableFromInline var emptyChecks = 0

        @inlinable
        init() {}

        /// Whether the side has spun for `limit` nanoseconds by `now`
        /// (starting the count at the first call).
        @inlinable
        mutating func isSpent(at now: Int64, limit: Int64) -> Bool {
            if started == 0 {
                started = now
                return false
            }
            return now &- started >= limit
        }
    }

    @inlinable
    init() {}

    /// Whether a consumer on an actor asked for spinning.
    @inlinable
    var isEnabled: Bool {
        Self.limit > 0 && enabled.load(ordering: .relaxed)
    }

    /// Switches the spin on, from a consumer isolated to an actor.
    @inlinable
    func enable() {
        if Self.limit > 0, !enabled.load(ordering: .relaxed) {
            enabled.store(true, ordering: .relaxed)
        }
    }

    /// The counter now; read before the locked check a spin follows.
    @inlinable
    var current: UInt {
        version.load(ordering: .acquiring)
    }

    /// Tells a spinning side that something changed; call after the change,
    /// outside or inside the lock.
    @inlinable
    func changed() {
        if enabled.load(ordering: .relaxed) {
            version.wrappingAdd(1, ordering: .releasing)
        }
    }

    /// One side's whole spin: runs `check` (a look under the lock) each time
    /// the counter moves past `seen`, until it finds what the side waits for
    /// or the side has spun for ``limit`` (`nil`: the caller suspends).
    @inlinable
    func spin<Found>(past seen: UInt, until check: () -> Found?) -> Found? {
        var seen = seen
        var allowance = Allowance()
        while let now = wait(past: seen, &allowance) {
            seen = now
            if let found = check() {
                return found
            }
            // A counter that keeps moving (other sides' steps) while the
            // check keeps finding nothing must not keep the side spinning:
            // the budget is time, read every 16 empty checks.
            allowance.emptyChecks &+= 1
            if allowance.emptyChecks & 15 == 0, allowance.isSpent(at: BootClock.nanoseconds(), limit: Self.limit) {
                return nil
            }
        }
        return nil
    }

    /// Spins until the counter moves past `seen`; returns the new value, or
    /// `nil` once the side has spun for ``limit`` (the caller suspends).
    @inlinable
    func wait(past seen: UInt, _ allowance: inout Allowance) -> UInt? {
        while true {
            for _ in 0..<64 {
                let now = version.load(ordering: .acquiring)
                if now != seen {
                    return now
                }
            }
            if allowance.isSpent(at: Self.yieldAndRead(), limit: Self.limit) {
                return nil
            }
        }
    }

    /// Lets another runnable thread have this processor (with more
    /// spinning sides than processors, the side spun for may be waiting for
    /// one), then reads the clock.
    @usableFromInline
    static func yieldAndRead() -> Int64 {
        #if canImport(Glibc)
        sched_yield()
        #endif
        return BootClock.nanoseconds()
    }
}
