/// The error of a ``TimeoutPublisher`` whose upstream stayed silent for its
/// interval.
///
/// ```swift
/// catch .timedOut(let error) { print(error) }   // "timed out"
/// ```
public struct TimeoutError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    /// `"timed out"`.
    public var description: String {
        "timed out"
    }
}

/// The failure of a ``TimeoutPublisher``: a timeout or the upstream's own
/// error.
///
/// Keeping both cases typed lets a consumer tell a silent device from a
/// failing one without casting:
///
/// ```swift
/// do {
///     for try await packet in notifications.timeout(.seconds(5), clock: clock) { record(packet) }
/// } catch .timedOut {
///     reconnect()
/// } catch .upstream(let error) {
///     report(error)
/// }
/// ```
///
/// `TimeoutFailure` is `Equatable` and `Hashable` when the upstream's
/// failure is.
public enum TimeoutFailure<Upstream: Error>: Error {
    /// The upstream stayed silent for the interval.
    case timedOut(TimeoutError)
    /// The upstream failed with this error.
    case upstream(Upstream)
}

extension TimeoutFailure: Equatable where Upstream: Equatable {}
extension TimeoutFailure: Hashable where Upstream: Hashable {}
