import ArgumentParser
import Quantities
import Recording

/// A point in time on the command line (`--from`, `--to`), in any form
/// `TimeSyntax` reads: `+10s`, an ISO 8601 time with or without a zone,
/// `HH:MM:SS` of the recording's first day, or nanoseconds since the epoch.
struct TimeArgument: ExpressibleByArgument, Hashable {
    let value: TimeSyntax

    init?(argument: String) {
        guard let value = TimeSyntax(parsing: argument) else { return nil }
        self.value = value
    }
}
