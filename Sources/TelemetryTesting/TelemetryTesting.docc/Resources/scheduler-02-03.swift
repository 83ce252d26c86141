import Streams
import TelemetryTesting
import Testing

/// A sensor that goes quiet for three seconds is given up on.
@Test func aSilentSensorTimesOut() async {
    let scheduler = TestScheduler()
    let readings = scheduler.hot("a-b-----c|")
    let guarded = readings.timeout(scheduler.ticks(3), clock: scheduler.clock)

    let run = await scheduler.run(guarded)

    #expect(run.mismatch(expected: "a-b--^") == nil)
    #expect(readings.subscriptionMarbles == ["^----!"])
}
