import Foundation

/// How many times the randomized decoder tests repeat their base rounds:
/// `TLM_FUZZ_SCALE` (default 1, about 100k packets per decoder). `make test`
/// sets 10, so every decoder sees a million or more random and mutated packets.
let fuzzScale = max(1, Int(ProcessInfo.processInfo.environment["TLM_FUZZ_SCALE"] ?? "") ?? 1)
