/// A clock that reads another clock as the time elapsed since an origin
/// instant (read when it is made): what the time-based operators drive their
/// state machines with when the clock measures in `Swift.Duration`.
///
/// It keeps the other clock's time exactly — an instant is `origin` advanced
/// by its offset, and a sleep sleeps on the other clock until that instant —
/// but its `Instant` is a plain `Duration`, so the machine, its actions and
/// the storage's armed deadlines have a layout the compiler knows.
/// `ContinuousClock.Instant` is a resilient type of the standard library:
/// held directly, every copy, destruction and optional test of a deadline went
/// through the runtime's value witnesses, which was most of the time per
/// element of debounce and throttle.
@usableFromInline
struct OffsetClock<Base: Clock>: Clock {
    /// An instant: the time elapsed since the clock's origin.
    @usableFromInline
    struct Instant: InstantProtocol {
        @usableFromInline var offset: Swift.Duration

        @inlinable
        init(offset: Swift.Duration) {
            self.offset = offset
        }

        @inlinable
        func advanced(by duration: Swift.Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        @inlinable
        func duration(to other: Instant) -> Swift.Duration {
            other.offset - offset
        }

        @inlinable
        static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    @usableFromInline let base: Base
    @usableFromInline let origin: Base.Instant

    /// A clock over `base` with its origin at `base.now`; `nil` unless
    /// `base` measures in `Swift.Duration`.
    @inlinable
    init?(_ base: Base) {
        guard Base.Duration.self == Swift.Duration.self else {
            return nil
        }
        self.base = base
        origin = base.now
    }

    @inlinable
    var now: Instant {
        // The casts are checked by `init?` and fold away once specialised.
        Instant(offset: origin.duration(to: base.now) as! Swift.Duration)
    }

    @inlinable
    var minimumResolution: Swift.Duration {
        base.minimumResolution as! Swift.Duration
    }

    /// The base clock's instant at `instant`.
    @inlinable
    func baseInstant(_ instant: Instant) -> Base.Instant {
        origin.advanced(by: instant.offset as! Base.Duration)
    }

    @inlinable
    func sleep(until deadline: Instant, tolerance: Swift.Duration?) async throws {
        try await base.sleep(until: baseInstant(deadline), tolerance: tolerance.map { $0 as! Base.Duration })
    }
}
