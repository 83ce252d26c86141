import ArgumentParser
import Quantities
import Recording

/// A duration on the command line: a number with a unit, `ns`, `us`, `ms`,
/// `s`, `m` or `h` (`500ms`, `10s`, `1.5m`, `2h`), read by `DurationSyntax`
/// as pipeline files read theirs, with the same bounds (positive, at most
/// 366 days).
struct DurationArgument: ExpressibleByArgument, Hashable, CustomStringConvertible {
    let duration: Duration
    let text: String

    /// Parses a duration, throwing the reason it is refused (for
    /// `@Option(transform:)`, whose errors ArgumentParser prints).
    init(parsing argument: String) throws(QuantityParseError) {
        self.duration = try DurationSyntax.parse(argument)
        self.text = argument
    }

    init?(argument: String) {
        guard let parsed = try? Self(parsing: argument) else { return nil }
        self = parsed
    }

    var description: String { text }

    static var defaultCompletionKind: CompletionKind { .default }
}
