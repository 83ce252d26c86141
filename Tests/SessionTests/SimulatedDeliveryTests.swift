import Devices
import Families
import Foundation
import Pipeline
import Recording
import Session
import TestSupport
import Testing

/// A session's simulated devices delivering as Bluetooth LE does
/// (`RecordingSession.Options.delivery`): the recording holds exactly what
/// the simulators delivered, at their receive instants, and nothing of the truth.
@Suite struct SimulatedDeliveryTests {
    /// A device's raw notifications in the recording: (log time, characteristic, bytes), in log-time order.
    static func recorded(_ directory: String, family: DeviceFamily) throws -> [(UInt64, CharacteristicUUID, [UInt8])] {
        let reader = try RecordingReader(directory: directory)
        let topics = reader.topics.filter { $0.hasPrefix("/\(family.rawValue)/") && $0.contains("/raw/") }
        return try reader.messages(topics: topics).map { message in
            let notification = try #require(RawNotificationMessage.decode(message.payload))
            #expect(notification.receiveTime == message.logTime)
            return (message.logTime, notification.characteristic, notification.bytes)
        }
    }

    /// What a simulator delivers in the first `duration`: (offset ns, characteristic, bytes).
    static func delivered(
        _ device: any SimulatedDevice, until duration: Duration
    ) -> [(
        UInt64, CharacteristicUUID, [UInt8]
    )] {
        var device = device
        var out: [(UInt64, CharacteristicUUID, [UInt8])] = []
        while true {
            let (offset, characteristic, bytes) = device.nextNotification()
            guard offset < duration else { return out }
            let (seconds, attoseconds) = offset.components
            out.append((UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000), characteristic, bytes))
        }
    }

    @Test func theRecordingHoldsWhatTheLinkDeliveredWhenItDeliveredIt() async throws {
        let delivery = BLEDelivery.session(connectionInterval: 0.030, driftPPM: 100)
        let pipeline = try Pipeline.simulated(families: [.diot, .jacquard], seed: 3, scenario: .clean)
        let directory = makeTemporaryDirectory() + "/rec"
        let duration = Duration.seconds(2)
        let session = RecordingSession(
            pipeline: pipeline, directory: directory, options: .init(duration: duration, delivery: delivery))
        _ = try await session.record()

        // The same simulators: the first device's clock runs 100 ppm slow, the second's 100 ppm fast.
        var fast = delivery
        fast.clock.driftPPM = -100
        let diot = Self.delivered(
            try #require(FamilyRegistry.builtIn.simulator(of: .diot, seed: 3, delivery: delivery)), until: duration)
        let jacquard = Self.delivered(
            try #require(FamilyRegistry.builtIn.simulator(of: .jacquard, seed: 3, delivery: fast)), until: duration)
        let recordedDiot = try Self.recorded(directory, family: .diot)
        let recordedJacquard = try Self.recorded(directory, family: .jacquard)
        #expect(recordedDiot.count == diot.count)
        #expect(recordedJacquard.count == jacquard.count)
        // Every notification, its bytes, and its receive time: the session start plus the delivered offset.
        let start = try #require(recordedDiot.first).0 - diot[0].0
        for (recorded, expected) in Array(zip(recordedDiot, diot)) + Array(zip(recordedJacquard, jacquard)) {
            #expect(recorded.0 == start + expected.0)
            #expect(recorded.1 == expected.1 && recorded.2 == expected.2)
        }
        // Connection events: many notifications share a receive instant.
        let instants = Set(recordedDiot.map(\.0))
        #expect(instants.count < recordedDiot.count * 2 / 3)
    }
}
