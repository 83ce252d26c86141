import ArgumentParser
import Foundation

/// A point in time on the command line: relative to the recording's first
/// message (`+10s`, `+1.5m`, `+500ms`), an ISO 8601 instant
/// (`2026-11-22T10:15:03Z`, fractional seconds allowed), or nanoseconds
/// since the Unix epoch.
struct TimeArgument: ExpressibleByArgument, Hashable {
    enum Value: Hashable {
        case relative(Duration)
        case absolute(UInt64)
    }

    let value: Value

    init?(argument: String) {
        if argument.hasPrefix("+") {
            guard let duration = DurationArgument(argument: String(argument.dropFirst())) else { return nil }
            value = .relative(duration.duration)
        } else if let nanoseconds = UInt64(argument) {
            value = .absolute(nanoseconds)
        } else if let date = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(argument))
            ?? (try? Date.ISO8601FormatStyle().parse(argument))
        {
            guard date.timeIntervalSince1970 >= 0 else { return nil }
            value = .absolute(UInt64((date.timeIntervalSince1970 * 1e9).rounded()))
        } else {
            return nil
        }
    }

    /// The instant, in nanoseconds since the Unix epoch, given the recording's start.
    func resolve(start: UInt64) -> UInt64 {
        switch value {
        case .relative(let duration):
            let (seconds, attoseconds) = duration.components
            return start &+ UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
        case .absolute(let nanoseconds):
            return nanoseconds
        }
    }
}
