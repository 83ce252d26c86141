import Streams
import TelemetryTesting
import Testing

/// Each connection to a device plays its session from the start.
@Test func eachConnectionPlaysTheSessionAgain() async {
    let scheduler = TestScheduler()
    let connections = scheduler.hot("a---b|")
    let session = scheduler.cold("x-y|")

    let run = await scheduler.run(connections.flatMap(maxConcurrency: 1) { _ in session })

    #expect(run.mismatch(expected: "x-y-x-y|") == nil)
    #expect(session.subscriptionMarbles == ["^--!", "----^--!"])
}

/// The error a lost sensor fails with.
struct SensorLost: Error, Equatable {}

/// Typed readings, and the failure that ends them, compared by value.
@Test func readingsAreScaledUntilTheSensorIsLost() async {
    let scheduler = TestScheduler()
    let readings = scheduler.hot("a-b-#", values: ["a": 1, "b": 2], error: SensorLost())

    let run = await scheduler.run(readings.map { $0 * 10 })

    #expect(
        run.mismatch(expected: [.value(10, at: 0), .value(20, at: 2), .failure(SensorLost(), at: 4)]) == nil)
}
