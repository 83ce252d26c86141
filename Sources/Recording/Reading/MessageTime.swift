/// Which of a message's times a reader orders, selects and shows it by
/// (`--time sample|receive`).
///
/// A typed stream's messages carry their sample time (when the device
/// measured them) as MCAP `publish_time` and as the `stamp` field first in
/// their schema; every message carries its receive time as `log_time`.
/// A stream without a `stamp` first in its schema (raw notifications, loss
/// records, any stream of a recording made before sample times) has no
/// sample time of its own: its receive time stands in for it, so such a
/// recording reads the same in both modes.
///
/// ```swift
/// let cursor = try source.messageCursor(topics: source.topics, time: .sample)
/// ```
public enum MessageTime: String, Sendable, Hashable, CaseIterable {
    /// The sample time: `publish_time` of a stamped stream, `log_time` of any other (the default).
    case sample
    /// The receive time: `log_time`.
    case receive

    /// The time of `message` in this mode, for a stream that is stamped or not
    /// (see `ExportTopic.hasSampleTime`).
    public func of(_ message: RecordedMessage, stamped: Bool) -> UInt64 {
        self == .sample && stamped ? message.publishTime : message.logTime
    }

    /// The column or key name of this time: `publish_time` or `log_time`.
    public var columnName: String { self == .sample ? "publish_time" : "log_time" }
}
