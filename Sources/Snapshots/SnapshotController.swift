import Dispatch
import Foundation
public import Recording
import Synchronization
import UnixSignals

/// A flight recorder's brain: takes triggers and markers from any thread
/// (a signal, a key, D-Bus, a pipeline condition, a program), and on the
/// recording task's ticks turns them into windows (``SnapshotScheduler``)
/// and each window, once its end has passed, into a snapshot written by
/// ``SnapshotWriter`` on a thread of its own (one at a time, so the
/// recording task never waits for a disk). A snapshot that fails to write —
/// a full disk — is reported and the ring keeps running.
///
/// ```swift
/// let controller = try SnapshotController(options: .init(keep: .seconds(120), after: .seconds(10)),
///                                         folder: SnapshotFolder(path: "crashes"))
/// controller.trigger(source: .api, reason: "operator asked")
/// for await event in controller.events { print(event) }
/// ```
public final class SnapshotController: Sendable {
    /// The settings.
    public let options: SnapshotOptions
    /// Where snapshots go.
    public let folder: SnapshotFolder
    /// The ring the recorder writes into.
    public let ring: SnapshotRing
    /// What the controller did, in order; ends after ``finish(now:recorder:)``.
    public let events: AsyncStream<SnapshotEvent>

    private enum Request {
        case trigger(SnapshotTrigger)
        case marker(source: String, note: String, time: UInt64, value: Double?)
    }

    private struct State {
        var scheduler: SnapshotScheduler
        var writer: SnapshotWriter?
        var written: [SnapshotWriter.Written] = []
        var failures = 0
        var suppressed = 0
    }

    private let inbox = Mutex<[Request]>([])
    private let state: Mutex<State>
    private let continuation: AsyncStream<SnapshotEvent>.Continuation
    private let writing = DispatchQueue(label: "tlm.snapshots.write")

    /// Creates a controller and its ring.
    ///
    /// - Throws: `RecordingError` if the options bound nothing.
    public init(options: SnapshotOptions, folder: SnapshotFolder) throws(RecordingError) {
        self.options = options
        self.folder = folder
        self.ring = try SnapshotRing(keep: options.keep, keepBytes: options.keepBytes)
        let before = options.before.map(\.nanosecondsClamped) ?? UInt64.max
        self.state = Mutex(
            State(
                scheduler: SnapshotScheduler(
                    before: before, after: options.after.nanosecondsClamped,
                    cooldown: options.cooldown.nanosecondsClamped, maximumPerHour: options.maximumPerHour)))
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1024))
    }

    /// Asks for a snapshot around `time` (default now), from any thread; it
    /// is taken at the recording task's next tick.
    public func trigger(
        source: SnapshotTrigger.Source, reason: String, value: Double? = nil, time: UInt64 = Recorder.now(),
        before: Duration? = nil, after: Duration? = nil
    ) {
        trigger(
            SnapshotTrigger(
                time: time, source: source, reason: reason, value: value,
                before: before.map(\.nanosecondsClamped), after: after.map(\.nanosecondsClamped)))
    }

    /// Asks for a snapshot, from any thread.
    public func trigger(_ trigger: SnapshotTrigger) {
        inbox.withLock { $0.append(.trigger(trigger)) }
    }

    /// Adds a marker to the recording at `time` (default now), from any thread.
    public func mark(source: String, note: String, value: Double? = nil, time: UInt64 = Recorder.now()) {
        inbox.withLock { $0.append(.marker(source: source, note: note, time: time, value: value)) }
    }

    /// Takes `SIGUSR1` as a trigger (source ``SnapshotTrigger/Source/signal``)
    /// until the returned task is cancelled; the signal is trapped when this returns.
    /// `SIGXFSZ` is ignored from then on: a file size limit fails a
    /// snapshot's write (`EFBIG`, as a full disk does) instead of killing the
    /// recorder and its ring.
    public func triggerOnSignals() async -> Task<Void, Never> {
        signal(SIGXFSZ, SIG_IGN)
        let signals = await UnixSignalsSequence(trapping: .sigusr1)
        return Task {
            for await _ in signals {
                trigger(source: .signal, reason: "SIGUSR1")
            }
        }
    }

    /// Snapshots written so far.
    public var written: [SnapshotWriter.Written] { state.withLock { $0.written } }
    /// Snapshots that failed to write so far.
    public var failureCount: Int { state.withLock { $0.failures } }
    /// Triggers suppressed so far.
    public var suppressedCount: Int { state.withLock { $0.suppressed } }

    /// Starts: snapshots are written as `session`'s, with `configuration`.
    /// Call it on the recording task before the first tick.
    public func start(session: Recorder.Session, configuration: RecorderConfiguration) {
        start(session: session, configuration: configuration, storage: nil)
    }

    /// Starts, with snapshots' segment bytes going through `storage` (tests).
    package func start(
        session: Recorder.Session, configuration: RecorderConfiguration, storage: (any SegmentStorage)?
    ) {
        var settings = configuration
        settings.durability = .chunk
        var writer = SnapshotWriter(session: session, configuration: settings)
        writer.storage = storage
        state.withLock { $0.writer = writer }
    }

    /// Takes what came since the last tick: writes markers, offers triggers,
    /// and writes every window whose end `now` has passed. On the recording task.
    public func tick(now: UInt64, recorder: Recorder) throws(RecordingError) {
        let requests = inbox.withLock { inbox in
            defer { inbox.removeAll() }
            return inbox
        }
        for request in requests {
            switch request {
            case .marker(let source, let note, let time, let value):
                try recorder.recordMarker(time: time, source: source, note: note, value: value)
                continuation.yield(.marked(source: source, note: note, time: time))
            case .trigger(let trigger):
                let (decision, ready) = state.withLock { state in
                    let decision = state.scheduler.offer(trigger)
                    if case .suppressed = decision { state.suppressed += 1 }
                    return (decision, state.scheduler.ready())
                }
                try write(ready, recorder: recorder)
                switch decision {
                case .opened(let window): continuation.yield(.opened(trigger, window))
                case .extended(let window): continuation.yield(.extended(trigger, window))
                case .suppressed(let why): continuation.yield(.suppressed(trigger, why))
                }
            }
        }
        try write(state.withLock { $0.scheduler.due(at: now) }, recorder: recorder)
    }

    /// The input has ended: takes the last requests, writes the open window
    /// cut at `now`, waits for every snapshot to be written and ends
    /// ``events``. On the recording task, before the recorder closes.
    public func finish(now: UInt64 = Recorder.now(), recorder: Recorder) throws(RecordingError) {
        try tick(now: now, recorder: recorder)
        try write(state.withLock { $0.scheduler.closeEarly(at: now) }, recorder: recorder)
        writing.sync {}
        continuation.finish()
    }

    /// Flushes the recorder into the ring and writes `windows`, each on the writing thread.
    private func write(_ windows: [SnapshotWindow], recorder: Recorder) throws(RecordingError) {
        guard !windows.isEmpty, let writer = state.withLock({ $0.writer }) else { return }
        try recorder.flush()
        let contents = ring.contents()
        for window in windows {
            let directory = folder.nextDirectory(at: window.triggers.first?.time ?? window.end)
            // Reserve the name now: the next window's name counts it.
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            writing.async {
                do throws(RecordingError) {
                    let written = try writer.write(contents, window: window, into: directory)
                    self.state.withLock { $0.written.append(written) }
                    self.continuation.yield(.written(written, window))
                } catch {
                    self.state.withLock { $0.failures += 1 }
                    self.continuation.yield(.failed(directory: directory, window, error.description))
                }
            }
        }
    }
}
