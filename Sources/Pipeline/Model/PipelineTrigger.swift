public import ROS2

/// A condition in a pipeline file that asks a flight recorder
/// (`tlm record --snapshot`) for a snapshot: every message of some streams
/// (`on:`), or a stream's value crossing a threshold (`when:`, on the
/// rising edge: once as it becomes true, again only after it was false).
///
/// ```yaml
/// triggers:
///   - name: fall
///     when: acc_magnitude > 3.0     # a derived stream, a topic pattern, or PATTERN.FIELD
///     before: 30s
///     after: 10s
///   - name: grip
///     on: /fjorden/*/grip
/// ```
public struct PipelineTrigger: Sendable {
    /// How a value is compared with the threshold.
    public enum Comparison: String, Sendable, CaseIterable {
        case above = ">"
        case atLeast = ">="
        case below = "<"
        case atMost = "<="

        /// Whether `value` meets the threshold (NaN never does).
        public func holds(_ value: Double, _ threshold: Double) -> Bool {
            switch self {
            case .above: value > threshold
            case .atLeast: value >= threshold
            case .below: value < threshold
            case .atMost: value <= threshold
            }
        }
    }

    /// What fires it.
    public enum Condition: Sendable {
        /// Every message of a stream a pattern selects.
        case on([TopicPattern])
        /// An input's value meeting a threshold, on the rising edge (per stream).
        case when(DerivedStream.Input, Comparison, Double)
    }

    /// Its name (in the snapshot's marker and metadata).
    public var name: String
    /// What fires it.
    public var condition: Condition
    /// Log time before it to include; `nil` for the recorder's default.
    public var before: Duration?
    /// Log time after it to include; `nil` for the recorder's default.
    public var after: Duration?
    /// Where it is written, for errors.
    public var location: SourceLocation

    /// The condition as written, for a marker's note.
    public var summary: String {
        switch condition {
        case .on(let patterns): "on " + patterns.map(\.text).joined(separator: ", ")
        case .when(let input, let comparison, let threshold):
            "when " + input.pattern.text + (input.field.map { "." + $0 } ?? "") + " \(comparison.rawValue) \(threshold)"
        }
    }
}
