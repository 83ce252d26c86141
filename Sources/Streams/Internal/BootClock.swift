#if canImport(Glibc)
import Glibc
#endif

/// `CLOCK_BOOTTIME` in nanoseconds: what `ContinuousClock` reads on Linux
/// (`swift_get_time`), read without the runtime call, the conversion to a
/// `ContinuousClock.Instant` and the `Duration` arithmetic between two of
/// them — a third of the time operators' per-element cost besides the
/// clock read itself (perf, throttle(0)). Not inlinable, so `Streams` does
/// not import the C library into its interface; a call is a few
/// nanoseconds of the read's 25 on this machine. 0 where there is no
/// `CLOCK_BOOTTIME` (``OffsetClock`` does not use it there).
@usableFromInline
enum BootClock {
    @usableFromInline
    static func nanoseconds() -> Int64 {
        #if os(Linux)
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
        #else
        return 0
        #endif
    }
}
