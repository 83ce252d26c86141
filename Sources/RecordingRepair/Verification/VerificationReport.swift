import Recording

/// What `verify` found: every inconsistency, named, or none.
public struct VerificationReport: Sendable, Hashable, Codable {
    /// One inconsistency.
    public struct Finding: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The segment it concerns (relative path), or `index.sqlite`.
        public var file: String
        /// What is wrong, in words a user can act on.
        public var message: String

        public var description: String { "\(file): \(message)" }
    }

    /// Every inconsistency found; empty when the recording is sound.
    public var findings: [Finding]
    /// Segments checked.
    public var segments: Int
    /// Messages read (every one, CRCs checked).
    public var messages: Int

    /// Whether nothing is wrong.
    public var isClean: Bool { findings.isEmpty }
}
