import Devices
import Foundation
import Recording
import RecordingRepair
import Streams
import TelemetryTesting
import TelemetryTestingRecordings
import TestSupport
import Testing

/// The committed fixture `Fixtures/diot-jacquard-seed3` was made with
/// `tlm record --simulate --family diot --family jacquard --seed 3 --duration 2s`.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct RecordedFixtureTests {
    static let diot = "ed8f01dbe4144b1d89a9817b8a6f46b3"
    static let jacquard = "479e287f4cc24e91a46d3c50b1637e98"

    @Test func theFixturesValuesAreTheSimulatorsForItsSeed() async throws {
        let replay = try RecordedFixture.replay("diot-jacquard-seed3", in: .module)
        var replayed: [DiotRecord] = []
        for await (_, event) in try replay.values(of: Self.diot, decoder: DiotDecoder()) {
            if case .record(let record) = event { replayed.append(record) }
        }
        // Same seed, same values: the simulator's ground truth, in order.
        var simulator = DiotSimulator(seed: 3)
        var expected: [DiotRecord] = []
        while expected.count < replayed.count { expected += simulator.next().records }
        #expect(replayed.count > 500)
        #expect(replayed == Array(expected.prefix(replayed.count)))
    }

    @Test func aManualClockPacesTheReplayAtTheRecordedInstants() async throws {
        let replay = try RecordedFixture.replay("diot-jacquard-seed3", in: .module)
        // The receive times of the first 30 gestures/touch/IMU values, unpaced.
        var times: [UInt64] = []
        for await (time, _) in try replay.values(of: Self.jacquard, decoder: JacquardDecoder()).prefix(30) {
            times.append(time)
        }
        #expect(times.count == 30)

        let clock = ManualClock()
        let paced = try replay.values(of: Self.jacquard, decoder: JacquardDecoder(), clock: clock, rate: 2)
        let consumer = Task {
            var instants: [Duration] = []
            for await _ in paced.prefix(30) { instants.append(clock.now.offset) }
            return instants
        }
        // One advance per later receive time: each value waits for its instant.
        for _ in Set(times).filter({ $0 > times[0] }) {
            await clock.waitForSleepers(atLeast: 1)
            await clock.advance(to: clock.nextDeadline!)
        }
        let instants = await consumer.value
        // At rate 2, value i is released (t_i - t_0) / 2 after the start.
        #expect(instants == times.map { .nanoseconds(Int64(($0 - times[0]) / 2)) })
    }

    /// The fixture was recorded in the old layout (its segment in `segments/`,
    /// before the recording directory became the ROS 2 bag): it still reads
    /// and verifies where it is.
    @Test func theFixtureInTheOldLayoutStillVerifies() throws {
        let url = try #require(
            Bundle.module.url(forResource: "diot-jacquard-seed3", withExtension: nil, subdirectory: "Fixtures"))
        let info = try RecordingInfo.load(from: url.path)
        #expect(info.segments.map(\.path) == ["segments/000001.mcap"])
        let report = try RecordingVerifier.verify(directory: url.path)
        #expect(report.findings.isEmpty, "\(report.findings)")
        #expect(report.segments == 1 && report.messages == info.messageCount && info.messageCount > 0)
    }

    @Test func aMissingFixtureIsAClearError() {
        let error = #expect(throws: RecordingError.self) { _ = try RecordedFixture.replay("nope", in: .module) }
        #expect(error?.code == .notFound)
    }
}
