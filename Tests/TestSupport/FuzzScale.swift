import Foundation

/// How many times the randomized tests repeat their base rounds:
/// `TLM_FUZZ_SCALE`, at least 1 (default 1, as `make test` runs them;
/// `make fuzz` sets 100).
public let fuzzScale = max(1, Int(ProcessInfo.processInfo.environment["TLM_FUZZ_SCALE"] ?? "") ?? 1)
