/// An instant of log time — a message's host receive time, nanoseconds since
/// the Unix epoch — as an `InstantProtocol`, so the `Streams` state machines
/// run on the messages' own time instead of a clock: live and replay see the
/// same instants and so derive the same values.
struct LogInstant: InstantProtocol {
    let nanoseconds: UInt64

    init(_ nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    func advanced(by duration: Duration) -> LogInstant {
        let (seconds, attoseconds) = duration.components
        let delta = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        if delta >= 0 {
            let (sum, overflow) = nanoseconds.addingReportingOverflow(UInt64(delta))
            return LogInstant(overflow ? .max : sum)
        }
        let magnitude = delta.magnitude
        return LogInstant(magnitude > nanoseconds ? 0 : nanoseconds - magnitude)
    }

    func duration(to other: LogInstant) -> Duration {
        if other.nanoseconds >= nanoseconds {
            return .nanoseconds(Int64(clamping: other.nanoseconds - nanoseconds))
        }
        return .nanoseconds(-Int64(clamping: nanoseconds - other.nanoseconds))
    }

    static func < (lhs: LogInstant, rhs: LogInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
}
