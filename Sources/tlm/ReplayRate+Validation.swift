import ArgumentParser
import Recording

extension ReplayRate {
    /// Checks a command's pacing options, as `replay` and `serve` take them:
    /// a rate within `ReplayRate.range`, and not both a rate and
    /// `--as-fast-as-possible`.
    static func validate(rate: Double?, asFastAsPossible: Bool) throws {
        if let rate, !range.contains(rate) {
            throw ValidationError(
                "--rate must be between \(text(range.lowerBound)) and "
                    + "\(text(range.upperBound)) (a multiple of real time)")
        }
        if rate != nil, asFastAsPossible {
            throw ValidationError("--rate and --as-fast-as-possible exclude each other")
        }
    }
}
