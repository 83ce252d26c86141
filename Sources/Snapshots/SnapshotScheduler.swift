/// Turns triggers into snapshot windows, as a pure state machine on log
/// time (no clock, no I/O; the controller feeds it).
///
/// A trigger at *t* asks for `[t − before, t + after]`. While a window is
/// open (its end not yet passed), a trigger whose window overlaps or touches
/// it extends it: one snapshot. Once a window has closed, triggers within
/// `cooldown` of its end are suppressed, and so are triggers beyond
/// `maximumPerHour` windows opened in the hour before them: a flapping
/// condition cannot fill the disk. A suppressed trigger is reported, never
/// silently dropped.
public struct SnapshotScheduler: Sendable {
    /// What became of an offered trigger.
    public enum Decision: Sendable, Hashable {
        /// It opened a window.
        case opened(SnapshotWindow)
        /// It extended the open window (to the window given).
        case extended(SnapshotWindow)
        /// It was suppressed, and why.
        case suppressed(String)
    }

    /// Log time before a trigger to include by default (nanoseconds).
    public let before: UInt64
    /// Log time after a trigger to include by default (nanoseconds).
    public let after: UInt64
    /// Log time after a window closes during which triggers are suppressed.
    public let cooldown: UInt64
    /// Windows opened per hour of log time at most; `nil` for no limit.
    public let maximumPerHour: Int?

    /// The window still open, if any.
    public private(set) var open: SnapshotWindow?
    private var closedEnd: UInt64?
    private var closed: [SnapshotWindow] = []
    private var openedAt: [UInt64] = []

    private static let hour: UInt64 = 3_600_000_000_000

    /// Creates a scheduler.
    public init(before: UInt64, after: UInt64, cooldown: UInt64 = 0, maximumPerHour: Int? = nil) {
        self.before = before
        self.after = after
        self.cooldown = cooldown
        self.maximumPerHour = maximumPerHour
    }

    /// Offers a trigger. An open window that ends before this trigger's
    /// window starts is closed (``ready()`` hands it over).
    public mutating func offer(_ trigger: SnapshotTrigger) -> Decision {
        let start = trigger.time - min(trigger.time, trigger.before ?? before)
        let (end, overflow) = trigger.time.addingReportingOverflow(trigger.after ?? after)
        let windowEnd = overflow ? UInt64.max : end
        if var window = open {
            if start <= window.end {
                window.start = min(window.start, start)
                window.end = max(window.end, windowEnd)
                window.triggers.append(trigger)
                open = window
                return .extended(window)
            }
            close()
        }
        if let closedEnd, trigger.time >= closedEnd, trigger.time - closedEnd < cooldown {
            return .suppressed(
                "within the cooldown after the snapshot that ended \(trigger.time - closedEnd) ns before")
        }
        if let closedEnd, trigger.time < closedEnd {
            return .suppressed("before the end of the last snapshot")
        }
        if let maximumPerHour {
            openedAt.removeAll { trigger.time >= $0 && trigger.time - $0 >= Self.hour }
            if openedAt.count >= maximumPerHour {
                return .suppressed("\(maximumPerHour) snapshots in the last hour already")
            }
        }
        let window = SnapshotWindow(start: start, end: windowEnd, triggers: [trigger])
        open = window
        openedAt.append(trigger.time)
        return .opened(window)
    }

    /// The windows closed by later triggers, oldest first (handed over once).
    public mutating func ready() -> [SnapshotWindow] {
        defer { closed.removeAll() }
        return closed
    }

    /// The closed windows and the open one, once `now` has passed its end
    /// (it is closed then).
    public mutating func due(at now: UInt64) -> [SnapshotWindow] {
        if let window = open, now >= window.end { close() }
        return ready()
    }

    /// The closed windows and the open one, whatever its end (the input has
    /// ended): it ends at `now` if that is earlier.
    public mutating func closeEarly(at now: UInt64) -> [SnapshotWindow] {
        if var window = open {
            window.end = min(window.end, max(now, window.start))
            open = window
            close()
        }
        return ready()
    }

    private mutating func close() {
        guard let window = open else { return }
        open = nil
        closedEnd = window.end
        closed.append(window)
    }
}
