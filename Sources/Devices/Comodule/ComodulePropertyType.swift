/// The type of a Comodule property, with what decoding it needs.
///
/// ```swift
/// let speed = ComodulePropertyType.range(step: 0.1, lowerBound: 0, upperBound: 100)
/// let lights = ComodulePropertyType.states(["disabled", "blinking", "enabled"])
/// ```
public enum ComodulePropertyType: Sendable, Hashable {
    /// A number: `Double(rawInt) × step + lowerBound`, valid within
    /// `lowerBound...upperBound` (the read range).
    case range(step: Double, lowerBound: Double, upperBound: Double)
    /// One of a list of state identifiers; the raw integer is the index.
    case states([String])
    /// Up to 8 bytes, kept as they are.
    case raw

    /// `"range"`, `"states"` or `"raw"`: the `type` field of a table file.
    public var name: String {
        switch self {
        case .range: "range"
        case .states: "states"
        case .raw: "raw"
        }
    }
}
