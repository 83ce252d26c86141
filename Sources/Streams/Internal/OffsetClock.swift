/// A clock that reads another clock as the time elapsed since an origin
/// instant (read when it is made): what the time-based operators drive their
/// state machines with when the clock measures in `Swift.Duration`.
///
/// It keeps the other clock's time exactly — an instant is `origin` advanced
/// by its offset, and a sleep sleeps on the other clock until that instant —
/// but its `Instant` is a plain attosecond count, so the machine, its actions and
/// the storage's armed deadlines have a layout the compiler knows.
/// `ContinuousClock.Instant` is a resilient type of the standard library:
/// held directly, every copy, destruction and optional test of a deadline went
/// through the runtime's value witnesses, which was most of the time per
/// element of debounce and throttle.
@usableFromInline
struct OffsetClock<Base: Clock>: Clock {
    /// An instant: the time elapsed since the clock's origin.
    ///
    /// It holds the elapsed time as attoseconds in an `Int128`, whose
    /// comparisons and sums are inlined: the machines compare and advance
    /// instants several times per element, and `Duration`'s operators are
    /// calls into the standard library.
    @usableFromInline
    struct Instant: InstantProtocol {
        /// The time since the origin, in attoseconds.
        @usableFromInline var attoseconds: Int128

        @inlinable
        init(offset: Swift.Duration) {
            attoseconds = offset.attoseconds
        }

        @inlinable
        init(attoseconds: Int128) {
            self.attoseconds = attoseconds
        }

        /// The time since the clock's origin.
        @inlinable
        var offset: Swift.Duration {
            Swift.Duration(attoseconds: attoseconds)
        }

        @inlinable
        func advanced(by duration: Swift.Duration) -> Instant {
            var instant = self
            instant.attoseconds += duration.attoseconds
            return instant
        }

        @inlinable
        func duration(to other: Instant) -> Swift.Duration {
            Swift.Duration(attoseconds: other.attoseconds - attoseconds)
        }

        @inlinable
        static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.attoseconds < rhs.attoseconds
        }

        @inlinable
        static func <= (lhs: Instant, rhs: Instant) -> Bool {
            lhs.attoseconds <= rhs.attoseconds
        }

        @inlinable
        static func > (lhs: Instant, rhs: Instant) -> Bool {
            lhs.attoseconds > rhs.attoseconds
        }

        @inlinable
        static func >= (lhs: Instant, rhs: Instant) -> Bool {
            lhs.attoseconds >= rhs.attoseconds
        }
    }

    @usableFromInline let base: Base
    @usableFromInline let origin: Base.Instant
    /// With a `ContinuousClock` on Linux: the origin in nanoseconds of
    /// `CLOCK_BOOTTIME`, which ``now`` reads directly; otherwise `nil`.
    @usableFromInline let bootOrigin: Int64?

    /// A clock over `base` with its origin at `base.now`; `nil` unless
    /// `base` measures in `Swift.Duration`.
    @inlinable
    init?(_ base: Base) {
        guard Base.Duration.self == Swift.Duration.self else {
            return nil
        }
        self.base = base
        origin = base.now
        bootOrigin = Self.bootNanoseconds(of: origin)
    }

    @inlinable
    var now: Instant {
        #if os(Linux)
        if let bootOrigin {
            return Instant(attoseconds: Int128(BootClock.nanoseconds() &- bootOrigin) &* 1_000_000_000)
        }
        #endif
        // The casts are checked by `init?` and fold away once specialised.
        return Instant(offset: origin.duration(to: base.now) as! Swift.Duration)
    }

    /// The `CLOCK_BOOTTIME` nanoseconds of `origin` when the base clock is
    /// `ContinuousClock` on Linux and its instants are that clock's time,
    /// as a `Duration` since boot with whole nanoseconds; `nil` otherwise
    /// (then ``now`` reads the base clock).
    ///
    /// `ContinuousClock.Instant` does not publish its value: it is read
    /// as the `Duration` it holds, and trusted only if the layout has that
    /// size and a direct reading falls between `origin` and a later
    /// `ContinuousClock.now` — so `now` keeps the base clock's time
    /// exactly, or the direct path is not taken.
    @inlinable
    static func bootNanoseconds(of origin: Base.Instant) -> Int64? {
        #if os(Linux)
        guard let origin = origin as? ContinuousClock.Instant,
            MemoryLayout<ContinuousClock.Instant>.size == MemoryLayout<Swift.Duration>.size
        else {
            return nil
        }
        let nanosecond: Int128 = 1_000_000_000
        let start = unsafeBitCast(origin, to: Swift.Duration.self).attoseconds
        let read = Int128(BootClock.nanoseconds()) * nanosecond
        let end = unsafeBitCast(ContinuousClock.now, to: Swift.Duration.self).attoseconds
        guard start % nanosecond == 0, start <= read, read <= end, end - start < 1_000_000_000 * nanosecond,
            let nanoseconds = Int64(exactly: start / nanosecond)
        else {
            return nil
        }
        return nanoseconds
        #else
        return nil
        #endif
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
