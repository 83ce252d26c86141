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
