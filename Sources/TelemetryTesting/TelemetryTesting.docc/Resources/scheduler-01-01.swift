import Streams
import TelemetryTesting
import Testing

/// A grip sensor reports presses in bursts. The app acts on the last press
/// of a burst, once the grip has been still for three seconds.
@Test func lastPressAfterThreeQuietSeconds() async {
}
