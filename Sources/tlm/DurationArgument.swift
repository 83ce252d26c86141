import ArgumentParser

/// A duration on the command line: a number with a unit, `ms`, `s`, `m` or
/// `h` (`500ms`, `10s`, `1.5m`, `2h`); a bare number means seconds.
struct DurationArgument: ExpressibleByArgument, Hashable, CustomStringConvertible {
    let duration: Duration
    let text: String

    init?(argument: String) {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(argument)
        var scale = 1.0
        for (suffix, factor) in units where argument.hasSuffix(suffix) {
            number = argument.dropLast(suffix.count)
            scale = factor
            break
        }
        guard let value = Double(number), value.isFinite, value > 0, value * scale < 1e9 else { return nil }
        self.duration = .nanoseconds(Int64((value * scale * 1e9).rounded()))
        self.text = argument
    }

    var description: String { text }

    static var defaultCompletionKind: CompletionKind { .default }
}
