import Foundation

/// Ticks of a value axis at readable steps (1, 2 or 5 × 10ⁿ, the one
/// nearest to a tick per 22 pixels, labels at least 15 pixels apart), with labels
/// of as many decimals as the step needs: what ``SVGPlot`` and ``PNGPlot``
/// draw beside a lane (the HTML report's script computes the same for the
/// values in view).
enum ValueTicks {
    /// The ticks within `low ... high` (finite, `low < high`) on an axis of
    /// `length` pixels, each with its label (`"-2.5 g"`: the unit after it).
    static func ticks(
        low: Double, high: Double, length: Double, spacing: Double = 22, unit: String?
    )
        -> [(value: Double, label: String)]
    {
        guard low.isFinite, high.isFinite, high > low, (high - low).isFinite else { return [] }
        // The step nearest (in ratio) to one per `spacing` pixels, then coarser while labels would be closer than 15.
        let target = (high - low) / max(2, length / spacing)
        let decade = pow(10, floor(log10(target)))
        var step = [1.0, 2, 5, 10].map { $0 * decade }.min { abs(log($0 / target)) < abs(log($1 / target)) }!
        while (high - low) / step > length / 15 {
            let mantissa = (step / pow(10, floor(log10(step) + 1e-9))).rounded()
            step *= mantissa == 2 ? 2.5 : 2
        }
        let digits = max(0, -Int(floor(log10(step) + 1e-9)))
        let suffix = unit.map { $0.isEmpty ? "" : " " + $0 } ?? ""
        var result: [(Double, String)] = []
        var index = (low / step - 1e-9).rounded(.up)
        while index * step <= high + step * 1e-9, result.count < 50 {
            let value = index * step
            result.append((value, String(format: "%.\(digits)f", value == 0 ? 0 : value) + suffix))
            index += 1
        }
        return result
    }

    /// The ticks of a lane of instants (seconds since the Unix epoch) within
    /// `low ... high`: whole steps of a clock `offset` seconds from UTC (1 s
    /// to 30 days), labelled as dates (`2023-11-14 22:13`, to the second
    /// for steps under a minute, the day alone for steps of days).
    static func dates(low: Double, high: Double, length: Double, offset: Int) -> [(value: Double, label: String)] {
        guard low.isFinite, high.isFinite, high > low else { return [] }
        let steps: [Double] = SVGPlot.clockSteps.map(Double.init) + [172_800, 604_800, 2_592_000]
        let target = (high - low) / max(2, length / 30)
        let step = steps.first { $0 >= target } ?? steps.last!
        var result: [(Double, String)] = []
        var value = ((low + Double(offset)) / step).rounded(.up) * step - Double(offset)
        while value <= high, result.count < 50 {
            let text = ISO8601DateFormatter.string(
                from: Date(timeIntervalSince1970: value + Double(offset)), timeZone: TimeZone(identifier: "UTC")!,
                formatOptions: [.withFullDate, .withTime, .withColonSeparatorInTime, .withSpaceBetweenDateAndTime])
            result.append(
                (value, step >= 86400 ? String(text.prefix(10)) : step >= 60 ? String(text.prefix(16)) : text))
            value += step
        }
        return result
    }
}
