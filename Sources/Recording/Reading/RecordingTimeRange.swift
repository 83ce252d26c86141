public import Foundation
public import Quantities

/// A time range as people give it (`--from`, `--to`), resolved against a
/// recording: every verb that reads a range (query, export, cat, filter,
/// report, replay, serve, cat `--follow`) resolves it here, so each reads
/// the same forms the same way and refuses an empty range alike.
///
/// Relative times (`+10s`) and times of day count from the recording's
/// first message (see ``origin(of:)``); times without a zone are read in
/// ``zone``.
///
/// ```swift
/// let range = RecordingTimeRange(from: TimeSyntax(parsing: "+2s"), to: TimeSyntax(parsing: "+3s"))
/// let (from, to) = try range.resolve(try RecordingInfo.load(from: "ride"))
/// ```
public struct RecordingTimeRange: Hashable, Sendable {
    /// The lower bound (inclusive), or `nil` for the first message.
    public var from: TimeSyntax?
    /// The upper bound (exclusive), or `nil` for just after the last message.
    public var to: TimeSyntax?
    /// The zone a time of day, or a date and time without a zone, is read in.
    public var zone: TimeZone

    /// The message of the error an empty range throws.
    public static let emptyMessage = "the range is empty: --to must be after --from"

    /// A range of the given bounds, read in `zone` (UTC by default).
    public init(from: TimeSyntax? = nil, to: TimeSyntax? = nil, zone: TimeZone = TimeZone(identifier: "UTC")!) {
        self.from = from
        self.to = to
        self.zone = zone
    }

    /// Whether neither bound is given.
    public var isUnbounded: Bool { from == nil && to == nil }

    /// The instant relative times count from: the recording's first
    /// message, or, before any, the session's start.
    public static func origin(of info: RecordingInfo) -> UInt64 {
        info.streams.compactMap(\.firstTime).min() ?? info.session.startedAt
    }

    /// The range `[from, to)` in nanoseconds since the epoch over a span of
    /// messages: a missing bound is the span's first message, or just after
    /// its last (see `TimeSyntax.range(from:to:span:zone:)`).
    ///
    /// - Parameter span: The first and last message times; `nil` without messages.
    /// - Throws: ``RecordingError`` (`.invalidConfiguration`) when the range is empty.
    public func resolve(span: (first: UInt64, last: UInt64)?) throws(RecordingError) -> (from: UInt64, to: UInt64) {
        let range = TimeSyntax.range(from: from, to: to, span: span, zone: zone)
        guard range.to > range.from else { throw RecordingError(.invalidConfiguration, Self.emptyMessage) }
        return range
    }

    /// The range over a recording's messages, from its index (``resolve(span:)``).
    ///
    /// - Throws: ``RecordingError`` when the range is empty.
    public func resolve(_ info: RecordingInfo) throws(RecordingError) -> (from: UInt64, to: UInt64) {
        try resolve(span: Self.span(of: info))
    }

    /// The first and last message times of a recording, from its index; `nil` without messages.
    public static func span(of info: RecordingInfo) -> (first: UInt64, last: UInt64)? {
        let first = info.streams.compactMap(\.firstTime).min()
        let last = info.streams.compactMap(\.lastTime).max()
        return first.map { ($0, max(last ?? $0, $0)) }
    }

    /// Whether the range, with a bound given, misses every message of a
    /// span: it ends at or before the first message, or starts after the
    /// last (so a verb reading it finds nothing, and says so rather than
    /// print an empty result as if it were one). A bounded range misses a
    /// span without messages; a range without bounds never misses, nor does
    /// an empty range of both bounds (`to` not after `from`: an error of its own).
    ///
    /// - Parameter span: The first and last message times; `nil` without messages.
    public func misses(span: (first: UInt64, last: UInt64)?) -> Bool {
        guard !isUnbounded else { return false }
        guard let span else { return true }
        let range = TimeSyntax.range(from: from, to: to, span: span, zone: zone)
        guard range.to > range.from || from == nil || to == nil else { return false }
        return range.to <= span.first || range.from > span.last
    }

    /// Whether the range misses every message of a recording (``misses(span:)``, over ``span(of:)``).
    public func misses(_ info: RecordingInfo) -> Bool { misses(span: Self.span(of: info)) }

    /// The range over a recording's or a lone MCAP file's messages (``resolve(span:)``).
    ///
    /// - Throws: ``RecordingError`` when the source cannot be read or the range is empty.
    public func resolve(_ source: RecordingSource) throws(RecordingError) -> (from: UInt64, to: UInt64) {
        try resolve(span: try source.timeSpan())
    }

    /// The bounds given, as instants (a missing one stays `nil`: no bound),
    /// counted from the recording's ``origin(of:)``.
    ///
    /// - Throws: ``RecordingError`` when both are given and the range is empty.
    public func bounds(_ info: RecordingInfo) throws(RecordingError) -> (from: UInt64?, to: UInt64?) {
        let origin = Self.origin(of: info)
        let lower = from?.resolve(start: origin, zone: zone)
        let upper = to?.resolve(start: origin, zone: zone)
        if let lower, let upper, upper <= lower { throw RecordingError(.invalidConfiguration, Self.emptyMessage) }
        return (lower, upper)
    }

    /// The bounds given, as instants (a missing one stays `nil`: no bound),
    /// relative times counted from the first message of `span` (the
    /// recording's first message in the time the verb reads: see
    /// `RecordingReader.timeSpan(time:)`).
    ///
    /// - Throws: ``RecordingError`` when both are given and the range is empty.
    public func bounds(
        span: (first: UInt64, last: UInt64)?, origin fallback: UInt64
    ) throws(RecordingError) -> (
        from: UInt64?, to: UInt64?
    ) {
        let origin = span?.first ?? fallback
        let lower = from?.resolve(start: origin, zone: zone)
        let upper = to?.resolve(start: origin, zone: zone)
        if let lower, let upper, upper <= lower { throw RecordingError(.invalidConfiguration, Self.emptyMessage) }
        return (lower, upper)
    }

    /// The bounds as offsets from the recording's ``origin(of:)`` (what a
    /// replay takes): an instant before it is offset zero; no lower bound
    /// is zero, no upper bound `nil`.
    ///
    /// - Throws: ``RecordingError`` when the upper offset is not after the lower.
    public func offsets(_ info: RecordingInfo) throws(RecordingError) -> (from: Duration, to: Duration?) {
        let origin = Self.origin(of: info)
        func offset(_ time: TimeSyntax) -> Duration {
            let instant = time.resolve(start: origin, zone: zone)
            return .nanoseconds(Int64(clamping: instant - min(instant, origin)))
        }
        let start = from.map(offset) ?? .zero
        let end = to.map(offset)
        if let end, end <= start { throw RecordingError(.invalidConfiguration, Self.emptyMessage) }
        return (start, end)
    }
}
