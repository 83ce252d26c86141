/// How simulated devices behave.
///
/// ```swift
/// let scenario = SimulationScenario(rawValue: "faults")  // .faults
/// ```
public enum SimulationScenario: String, Sendable, Hashable, CaseIterable {
    /// Well-behaved devices: no malformed packets, no disconnects.
    case clean
    /// Each family's fault-injecting preset: jitter, bursts, disconnects and
    /// reconnects, sequence gaps and malformed packets (recorded as loss).
    case faults
}
