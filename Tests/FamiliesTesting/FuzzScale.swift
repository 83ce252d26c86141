import Foundation

/// The `TLM_FUZZ_SCALE` environment variable, at least 1 (default 1).
enum FuzzScale {
    static let current = max(1, Int(ProcessInfo.processInfo.environment["TLM_FUZZ_SCALE"] ?? "") ?? 1)
}
