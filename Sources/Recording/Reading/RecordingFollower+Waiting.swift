import Foundation

extension RecordingFollower {
    /// Follows a recording that may still be being created: a recording
    /// just started may not have its directory or its index (or the
    /// index's tables) yet, so it tries again every 100 ms until `timeout`.
    ///
    /// ```swift
    /// let follower = try RecordingFollower.waiting(for: "live") { $0.hasSuffix("/gesture") }
    /// try follower.follow { messages in for message in messages { print(message.topic) } }
    /// ```
    ///
    /// - Parameters:
    ///   - directory: The recording directory.
    ///   - range: The messages wanted, resolved against the recording's
    ///     first message (its session's start before any), bounds left
    ///     open where none is given.
    ///   - time: The time that orders and selects (``MessageTime``; sample by default).
    ///   - latched: Begin the range with each latched topic's last message
    ///     before it (``init(directory:from:to:time:latched:selecting:)``).
    ///   - timeout: How long to wait for the recording.
    ///   - selects: Whether a topic is wanted.
    /// - Throws: ``RecordingError`` at once for a file rather than a
    ///   directory or an empty range; once `timeout` has passed, when the
    ///   directory does not exist or is not (yet) a readable recording.
    public static func waiting(
        for directory: String, range: RecordingTimeRange = RecordingTimeRange(), time: MessageTime = .sample,
        latched: Bool = false, timeout: Duration = .seconds(10), selecting selects: @escaping (String) -> Bool
    ) throws(RecordingError) -> RecordingFollower {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory)
            if exists, !isDirectory.boolValue {
                throw RecordingError(.unsupported, "--follow reads a recording directory being written, not a file")
            }
            let failure: RecordingError
            switch Result(catching: { () throws(RecordingError) in try RecordingInfo.load(from: directory) }) {
            case .success(let info):
                let (lower, upper) = try range.bounds(info)  // an empty range is refused at once
                do {
                    return try RecordingFollower(
                        directory: directory, from: lower, to: upper, time: time, latched: latched,
                        selecting: selects)
                } catch {
                    failure = error
                }
            case .failure(let error):
                failure = error
            }
            guard clock.now < deadline else {
                throw exists
                    ? failure
                    : RecordingError(.notFound, "\(directory) does not exist (expected a recording directory)")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// Hands `body` the messages of each ``poll()`` until the recording is
    /// no longer being written: a poll every `interval` while it is, then a
    /// last one for the chunks it closed with.
    ///
    /// - Parameters:
    ///   - interval: The time between polls.
    ///   - body: Takes each poll's messages (possibly none).
    /// - Throws: ``RecordingError`` from a poll or from `body`.
    public func follow(
        every interval: Duration = .milliseconds(200), _ body: ([RecordedMessage]) throws(RecordingError) -> Void
    ) throws(RecordingError) {
        while true {
            let writing = isBeingWritten
            try body(try poll())
            if !writing { return }
            let (seconds, attoseconds) = interval.components
            Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        }
    }
}
