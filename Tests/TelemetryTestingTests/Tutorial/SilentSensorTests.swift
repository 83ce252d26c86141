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

/// A consumer that stops listening lets go of the sensor at once.
@Test func aCancelledConsumerLetsGoOfTheSensor() async {
    let scheduler = TestScheduler()
    let readings = scheduler.hot("a-b-----c|")

    let run = await scheduler.run(readings.map { $0.uppercased() }, cancelAt: 4)

    #expect(run.mismatch(expected: "A-B") == nil)
    #expect(readings.subscriptionMarbles == ["^---!"])
}
