/// How an import fits the sample clocks of the devices it records
/// (`docs/time.md`, *Imports*).
public enum SampleTimeFit: String, Sendable, CaseIterable {
    /// Each clock fitted over its whole run at once, before any value is
    /// written (a pass of its own over the capture): the best times the
    /// deliveries allow, from the first sample on.
    case whole
    /// Each delivery timed as it comes, as a live recording times it: the
    /// times a live recording of the same deliveries would have had.
    case online
}

extension SampleTimeFit {
    /// The most samples one import (or its replay) fits, over all its devices:
    /// about 320 MB at most while fitting.
    static let sampleBudget = 4_000_000

    /// The samples each of `devices` devices with sample clocks
    /// (`FamilyDescriptor.hasSampleClocks`) may have fitted.
    static func sampleLimit(devices: Int) -> Int {
        max(100_000, sampleBudget / max(1, devices))
    }
}
