public import Families

/// What a decoder made of one fuzzed packet, for family-specific assertions
/// (``FamilyConformance/verifyFuzzing(rounds:seed:sourceLocation:inspect:)``).
public enum FamilyFuzzOutcome {
    /// Decoded: the values emitted, in order (the family's own types inside).
    case decoded([any Encodable & Sendable])
    /// Rejected: the family's error is the `underlying` one.
    case rejected(FamilyDecodingError)
}
