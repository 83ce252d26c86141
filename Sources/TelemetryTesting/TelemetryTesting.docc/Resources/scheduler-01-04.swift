import Streams
import TelemetryTesting
import Testing

/// A grip sensor reports presses in bursts. The app acts on the last press
/// of a burst, once the grip has been still for three seconds.
@Test func lastPressAfterThreeQuietSeconds() async {
    let scheduler = TestScheduler()
    let presses = scheduler.hot("a-b----c--|")
    let settled = presses.debounce(for: scheduler.ticks(3), clock: scheduler.clock)
}
