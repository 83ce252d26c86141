import Devices
import Recording
import TelemetryTestingRecordings
import XCTest

/// The fixture one-liner from XCTest, for projects that have not moved to swift-testing.
final class RecordedFixtureXCTests: XCTestCase {
    func testDiotValuesReplayFromTheCommittedFixture() async throws {
        let values = try RecordedFixture.replay("diot-jacquard-seed3", in: .module)
            .values(of: "ed8f01dbe4144b1d89a9817b8a6f46b3", decoder: DiotDecoder())
        var heartRates: [UInt32] = []
        for await (_, event) in values {
            if case .record(let record) = event, record.feature == .heartRate, case .int(let bpm) = record.value {
                heartRates.append(bpm)
            }
        }
        XCTAssertFalse(heartRates.isEmpty)
        XCTAssertTrue(heartRates.allSatisfy { (40...200).contains($0) }, "\(heartRates)")
    }
}
