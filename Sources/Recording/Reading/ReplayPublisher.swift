public import Streams

/// A recording's messages as a publisher, in log-time order, either as fast
/// as the consumer takes them or paced by a clock: message *i* is released
/// at `start + (logTime_i − logTime_0) / rate` on that clock, where `start`
/// is the clock's time at the first `next()`.
///
/// Drive it with `ManualClock` (TelemetryTesting) in tests to step through a
/// recording deterministically. Made by ``RecordingReplay``.
public struct ReplayPublisher<Element: Sendable, C: Clock>: Publisher, Sendable where C.Duration == Duration {
    public typealias Failure = Never

    package let items: [(time: UInt64, element: Element)]
    package let clock: C?
    package let rate: Double

    /// The pacing iterator.
    public struct Iterator: AsyncIteratorProtocol {
        package let items: [(time: UInt64, element: Element)]
        package let clock: C?
        package let rate: Double
        package var index = 0
        package var start: C.Instant?

        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
            guard index < items.count, !Task.isCancelled else {
                index = items.count
                return nil
            }
            if let clock {
                let origin = start ?? clock.now
                start = origin
                let deadline = origin.advanced(
                    by: ReplayRate.offset(
                        ofNanoseconds: items[index].time &- items[0].time,
                        rate: rate))
                do { try await clock.sleep(until: deadline, tolerance: nil) } catch {
                    index = items.count
                    return nil
                }
            }
            defer { index += 1 }
            return items[index].element
        }

        public mutating func next() async -> Element? { await next(isolation: nil) }
    }

    public func makeAsyncIterator() -> Iterator { Iterator(items: items, clock: clock, rate: rate) }
}

@available(*, unavailable)
extension ReplayPublisher.Iterator: Sendable {}
