import Foundation
import Recording

/// `--verbose` for verify and recover: how long each segment took, from the
/// progress reports they make after each segment (segments in name order).
final class SegmentTiming {
    private let names: [String]
    private let output: OutputOptions
    private let clock = ContinuousClock()
    private var last: (instant: ContinuousClock.Instant, bytes: UInt64)?
    private var index = 0

    /// - Parameters:
    ///   - directory: The recording (its `*.mcap`, or `segments/*.mcap` in the old layout).
    ///   - output: Where detail goes (nothing unless verbose).
    init(directory: String, output: OutputOptions) {
        self.output = output
        self.names = (try? RecordingLayout.segmentPaths(directory: directory).paths) ?? []
    }

    /// Takes one progress report: the first starts the clock, each later one ends a segment.
    func report(_ completed: UInt64, _ total: UInt64) {
        guard output.verbose else { return }
        let now = clock.now
        defer { last = (now, completed) }
        guard let last else { return }
        let name = index < names.count ? names[index] : "segment \(index + 1)"
        index += 1
        output.detail(
            "\(name): \(InfoReport.bytes(completed - min(completed, last.bytes))) in "
                + OutputOptions.seconds(now - last.instant))
    }
}
