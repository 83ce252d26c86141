/// A recording whose raw streams a ``RecordingSession`` replays through the
/// decoders again: which part of it, and how fast.
public struct ReplaySource: Sendable, Hashable {
    /// The recording directory.
    public var recording: String
    /// Start offset from the recording's first message.
    public var from: Duration
    /// End offset from the recording's first message; `nil` for the end.
    public var to: Duration?
    /// A multiple of real time; `nil` replays as fast as possible.
    public var rate: Double?

    /// Creates a replay source.
    public init(recording: String, from: Duration = .zero, to: Duration? = nil, rate: Double? = nil) {
        self.recording = recording
        self.from = from
        self.to = to
        self.rate = rate
    }
}
