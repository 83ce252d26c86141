import CaptureFiles
import Devices
import Foundation
import Pipeline
import Recording
import Session
import TestSupport
import Testing

@Suite struct CapturePipelineTests {
    /// A pipeline whose device reads a capture file: it picks its device by
    /// address, ends when the file does, and its derived streams run on the
    /// imported values.
    @Test func aCaptureSourceFeedsItsDeviceAndDerivedStreams() async throws {
        let scenario = CaptureScenario.make(families: [.diot, .fjorden], count: 300)
        let folder = makeTemporaryDirectory()
        try Data(CaptureFileWriter.write(scenario.packets, as: .btsnoopMonitor))
            .write(to: URL(fileURLWithPath: folder + "/ride.btsnoop"))
        let address = CaptureScenario.addressText(scenario.devices[0].address)
        let yaml = """
            name: from-capture
            devices:
              - name: imu
                family: diot
                source:
                  capture: {path: ride.btsnoop, address: "\(address)"}
            derived:
              - name: acc_x_copy
                from: /diot/*/acc_x
            """
        try yaml.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        let pipeline = try Pipeline(contentsOfFile: folder + "/p.yaml")
        let directory = folder + "/rec"
        // A small ingest buffer: the feed must wait for room, never drop.
        let session = RecordingSession(pipeline: pipeline, directory: directory, options: .init(ingestCapacity: 64))
        let summary = try await session.record()
        #expect(!summary.stoppedEarly)
        var diotOnly = scenario
        diotOnly.devices = [scenario.devices[0]]
        let reference = makeTemporaryDirectory("reference") + "/ref"
        try diotOnly.referenceRecording(at: reference)
        #expect(try expectSameStreams(directory, as: reference) > 0)
        let info = try RecordingInfo.load(from: directory)
        #expect(info.session.source == "capture")
        #expect(!info.losses.contains { $0.reason.contains("ingest buffer full") })
        #expect(info.devices.map(\.family) == ["diot"])
        let accX = try messages(
            reference, StreamDescriptor.topic(family: .diot, device: scenario.devices[0].identifier, stream: "acc_x"))
        #expect(!accX.isEmpty)
        #expect(try messages(directory, "/derived/acc_x_copy").map(\.logTime) == accX.map(\.logTime))
    }

    @Test func aCaptureWithoutTheDeviceIsAnErrorBeforeRecording() async throws {
        let scenario = CaptureScenario.make(families: [.fjorden], count: 20)
        let folder = makeTemporaryDirectory()
        try Data(CaptureFileWriter.write(scenario.packets, as: .pcapH4)).write(
            to: URL(fileURLWithPath: folder + "/c.pcap"))
        let yaml = """
            name: missing
            devices:
              - family: obvious
                source: {capture: c.pcap}
            """
        try yaml.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        let pipeline = try Pipeline(contentsOfFile: folder + "/p.yaml")
        let session = RecordingSession(pipeline: pipeline, directory: folder + "/rec")
        await #expect {
            try await session.record()
        } throws: { error in
            "\(error)".contains("holds no obvious device") && "\(error)".contains("(fjorden)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/rec/index.sqlite"))
    }
}
