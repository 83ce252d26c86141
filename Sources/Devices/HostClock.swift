#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The host's wall clock, as receive times and log times use it:
/// nanoseconds since the Unix epoch.
///
/// ```swift
/// let notification = RawNotification(characteristic: uuid, bytes: bytes, receiveTime: HostClock.now())
/// ```
public enum HostClock {
    /// Now, in nanoseconds since the Unix epoch (`CLOCK_REALTIME`).
    public static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
