/// A clock that times on another clock (``OffsetClock``): what
/// ``StreamsTaskExecutor/noteTiming(on:)`` reports instead of the adapter.
protocol ClockAdapter {
    /// The clock timed on.
    var adaptedClock: Any { get }
}

extension OffsetClock: ClockAdapter {
    var adaptedClock: Any { base }
}
