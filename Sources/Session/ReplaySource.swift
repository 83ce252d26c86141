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
    /// Whether a replay from a start after the first message begins with
    /// each latched typed stream's last message before the start (the
    /// original's, at its original times), as slices do.
    public var latched: Bool

    /// Creates a replay source.
    public init(
        recording: String, from: Duration = .zero, to: Duration? = nil, rate: Double? = nil, latched: Bool = false
    ) {
        self.recording = recording
        self.from = from
        self.to = to
        self.rate = rate
        self.latched = latched
    }
}
