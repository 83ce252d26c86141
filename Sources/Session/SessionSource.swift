/// Where a ``RecordingSession`` takes what it records from: one
/// conformance per mode — a pipeline's devices, a recording replayed, capture
/// files imported — so a new mode is one more source, run by the same
/// session.
///
/// The session does what every mode shares: it checks that its directory is
/// a new one, then calls ``validate()``, then ``record(in:)`` with a
/// ``SessionContext``; it turns a graceful shutdown (SIGINT, SIGTERM in a
/// `ServiceGroup`), the cancellation of its task and ``RecordingSession/stop()``
/// into a stop of that context; and when the source returns it reads the
/// new recording's index back into the ``RecordingSummary``.
///
/// A source opens its recorder in ``SessionContext/directory``, records
/// until its input ends or the context is stopped, and closes the recorder,
/// so the recording is complete either way:
///
/// ```swift
/// struct Ticks: SessionSource {
///     func record(in session: SessionContext) async throws -> SessionSourceResult {
///         let recorder = try Recorder(directory: session.directory, session: .init(name: "ticks", source: "ticks"))
///         let device = try RawDeviceRecorder(recorder: recorder, identifier: "T1", name: "ticks")
///         let tick = CharacteristicUUID(short: 0x2A37)
///         var count = 0
///         while !session.isStopped, count < 100 {
///             let bytes = [UInt8(count)]
///             try device.record(RawNotification(characteristic: tick, bytes: bytes, receiveTime: Recorder.now()))
///             count += 1
///         }
///         try recorder.close()
///         return SessionSourceResult(deviceCount: 1, replayedNotifications: count)
///     }
/// }
/// let summary = try await RecordingSession(source: Ticks(), directory: "ticks").record()
/// ```
public protocol SessionSource: Sendable {
    /// Checks the source's own settings before anything is read or written
    /// (the session has checked its directory already). By default nothing.
    ///
    /// - Throws: The error that ends the session before it starts.
    func validate() throws

    /// Records into `session`'s directory until the input ends or `session`
    /// is stopped, then closes the recording complete (its open chunk and
    /// segment, its index).
    ///
    /// - Parameter session: The directory, the options and the stop.
    /// - Returns: What the session's summary cannot read from the index.
    /// - Throws: What ends the recording: the session rethrows it.
    func record(in session: SessionContext) async throws -> SessionSourceResult
}

extension SessionSource {
    /// Nothing to check.
    public func validate() throws {}
}
