/// SplitMix64: a tiny, seedable generator whose output is the same on every
/// platform. Used by the simulator for identities, phases and noise.
struct SeededRandom: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    /// Creates a generator; equal seeds give equal sequences.
    init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform `Double` in `0..<1` from the top 53 bits.
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// Zero-mean triangular noise in `-amplitude..<amplitude` (sum of two uniforms).
    mutating func noise(_ amplitude: Double) -> Double {
        (nextUnit() + nextUnit() - 1) * amplitude
    }
}
