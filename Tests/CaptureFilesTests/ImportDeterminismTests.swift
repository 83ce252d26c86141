import CaptureFiles
import Devices
import Foundation
import Recording
import TestSupport
import Testing

/// Issue 34 item 4: `import` runs the same clock estimators over the
/// capture's times, so importing a capture twice gives the same sample
/// times, byte for byte, and the IMU's sample times strictly increase.
@Suite struct ImportDeterminismTests {
    @Test func importingTwiceGivesTheSameSampleTimes() async throws {
        let scenario = CaptureScenario.make(families: [.jacquard, .diot], count: 3_000, unknown: false)
        let bytes = CaptureFileWriter.write(scenario.packets, as: .btsnoopH4)
        var runs: [[[UInt64]]] = []
        var payloads: [[[UInt8]]] = []
        for _ in 0..<2 {
            let (directory, _, _) = try await importCapture([bytes])
            let reader = try RecordingReader(directory: directory)
            let messages = try reader.messages(topics: reader.topics)
            runs.append(messages.map { [$0.logTime, $0.publishTime] })
            payloads.append(messages.map(\.payload))
            let imu = try #require(reader.topics.first { $0.hasSuffix("/imu") && !$0.contains("/clock/") })
            let times = try reader.messages(topics: [imu]).map(\.publishTime)
            #expect(times.count > 50)
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
            #expect(reader.topics.contains { $0.hasSuffix("/clock/imu") })
        }
        #expect(runs[0] == runs[1] && payloads[0] == payloads[1])
        #expect(runs[0].contains { $0[1] < $0[0] })  // some sample times lie before their receipt
    }
}
