import DeviceRecording
import Devices
import Families
import Foundation
import Recording
import TestSupport
import Testing

/// The built-in families' descriptors hold together: each simulates,
/// records what it says it records, and captures only what it can decode.
@Suite struct BuiltInFamiliesTests {
    @Test(arguments: FamilyRegistry.builtIn.descriptors.map(\.family))
    func everySimulatedValueLandsOnADeclaredStreamWithADeclaredSchema(_ family: DeviceFamily) throws {
        let descriptor = try #require(FamilyRegistry.builtIn[family])
        var simulator = try #require(FamilyRegistry.builtIn.simulator(of: family, seed: 5))
        #expect(simulator.family == family)
        var decoder = try descriptor.makeDecoder()
        let schemaNames = Set(descriptor.schemas.map(\.name))
        var decoded = 0
        for _ in 0..<2_000 {
            let (_, characteristic, bytes) = simulator.nextNotification()
            try? decoder.decode(RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: 0)) { _ in
                decoded += 1
            }
        }
        #expect(decoded > 0)
        // Record the same notifications and check every typed stream is declared.
        let directory = makeTemporaryDirectory() + "/recording"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let recorder = try Recorder(directory: directory, session: .init(name: "families", source: "test"))
        var again = try #require(FamilyRegistry.builtIn.simulator(of: family, seed: 5))
        let device = try descriptor.makeRecorder(
            recorder,
            options: DeviceRecorderOptions(
                identifier: again.identifier, name: again.displayName, metadata: again.facts))
        for _ in 0..<2_000 {
            let (offset, characteristic, bytes) = again.nextNotification()
            try device.record(
                RawNotification(
                    characteristic: characteristic, bytes: bytes,
                    receiveTime: 1_700_000_000_000_000_000 + UInt64(offset.components.seconds) * 1_000_000_000))
        }
        try recorder.close()
        let info = try RecordingInfo.load(from: directory)
        for stream in info.streams where stream.kind != "raw" {
            let name = stream.topic.split(separator: "/").dropFirst(2).joined(separator: "/")
            // A clock's model belongs to the recorder, not to the family's streams.
            if name.hasPrefix("clock/") {
                #expect(stream.schema == "tlm/msg/ClockModel", "\(stream.topic)")
                continue
            }
            #expect(
                descriptor.streamNames.contains(name) || name.hasSuffix("/write_ack") || name.hasSuffix("/error"),
                "\(stream.topic) is not among \(family)'s stream names")
            #expect(schemaNames.contains(stream.schema), "\(stream.topic): schema \(stream.schema)")
        }
    }

    @Test func fjordenReadsOnlyDeviceInformationItDecodes() throws {
        let descriptor = try #require(FamilyRegistry.builtIn[.fjorden])
        var decoder = try descriptor.makeDecoder()
        for characteristic in descriptor.capture.read where characteristic != FjordenGATT.batteryLevel {
            var values = 0
            try decoder.decode(
                RawNotification(
                    characteristic: characteristic, bytes: Array("Grip G1".utf8),
                    receiveTime: 0)
            ) { _ in values += 1 }
            #expect(values == 1, "\(characteristic)")
        }
        #expect(!descriptor.capture.read.contains(CharacteristicUUID(short: 0x2A23)))
    }
}
