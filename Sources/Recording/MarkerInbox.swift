import Synchronization

/// Markers asked for from any thread — a key pressed, a D-Bus call — and
/// written into a recording by the task that owns its ``Recorder``
/// (``write(into:)``, on each tick), each at the instant it was asked for.
public final class MarkerInbox: Sendable {
    private struct Marker {
        var time: UInt64
        var source: String
        var note: String
    }

    private let pending = Mutex<[Marker]>([])

    /// Creates an empty inbox.
    public init() {}

    /// Asks for a marker at `time` (default now), from any thread.
    public func mark(source: String, note: String, time: UInt64 = Recorder.now()) {
        pending.withLock { $0.append(Marker(time: time, source: source, note: note)) }
    }

    /// Writes the markers asked for since the last call, on `/tlm/marker`.
    /// On the task that owns `recorder`.
    public func write(into recorder: Recorder) throws(RecordingError) {
        let markers = pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        for marker in markers {
            try recorder.recordMarker(time: marker.time, source: marker.source, note: marker.note)
        }
    }
}
