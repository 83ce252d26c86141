import DeviceRecording
import Devices
import Families
import Foundation
import Pipeline
import Recording
import TestSupport
import Testing

/// The example pipelines run, and the same pipeline and seed give the same
/// values twice; decoding a recording's raw streams again through the same
/// pipeline reproduces its derived streams.
@Suite struct PipelineSimulationTests {
    static let examples = [
        "default", "diot-imu", "comodule-ride", "jacquard-gestures", "fjorden-grip", "obvious-upgrade",
    ]

    static func path(_ example: String) -> String { repositoryRoot + "/Pipelines/\(example).yaml" }

    /// The derived messages of a recording: topic, log time, value.
    static func derivedMessages(_ directory: String) throws -> [String: [(UInt64, Double)]] {
        let reader = try RecordingReader(directory: directory)
        let topics = reader.topics.filter { $0.hasPrefix(DerivedStream.topicPrefix) }
        var result: [String: [(UInt64, Double)]] = [:]
        for message in try reader.messages(topics: topics) {
            result[message.topic, default: []].append((message.logTime, DerivedValue.decode(message.payload) ?? .nan))
        }
        return result
    }

    @Test(arguments: examples)
    func exampleRuns(_ example: String) throws {
        let pipeline = try Pipeline(contentsOfFile: Self.path(example))
        let directory = makeTemporaryDirectory("example-\(example)") + "/rec"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var names = Set<String>()
        let summary = try PipelineSimulation.record(
            pipeline, to: directory, duration: example == "obvious-upgrade" ? .seconds(100) : .seconds(30)
        ) { names.insert($0.name) }
        #expect(summary.notificationCount > 0)
        #expect(summary.decodedCount > 0)
        // Every derived stream produced values in that time.
        #expect(names == Set(pipeline.derived.map(\.name)), "\(example): \(names)")
        let info = try RecordingInfo.load(from: directory)
        let topics = Set(info.streams.map(\.topic))
        for stream in pipeline.derived where stream.isRecorded {
            #expect(topics.contains(stream.topic), "\(stream.topic) missing")
        }
        // Typed streams outside the record patterns are not written; raw streams always are.
        for topic in topics
        where !topic.hasPrefix(DerivedStream.topicPrefix) && !topic.contains("/raw/")
            && !topic.hasPrefix("/tlm/")
        {
            // A clock's model is written with a stream it times (here: the IMU's).
            let timed = topic.replacingOccurrences(of: "/clock/", with: "/")
            #expect(
                pipeline.records(topic: topic) || (topic.contains("/clock/") && topics.contains(timed)),
                "\(topic) written but not selected")
        }
        #expect(topics.contains { $0.contains("/raw/") })
    }

    @Test func defaultPipelineRecordsEveryFamily() throws {
        let pipeline = try Pipeline(contentsOfFile: Self.path("default"))
        #expect(pipeline.devices.map(\.family) == [.diot, .comodule, .jacquard, .fjorden, .obvious])
        #expect(pipeline.devices.allSatisfy { $0.source == .simulated(seed: 1, scenario: .clean, rate: nil) })
        #expect(pipeline.record == nil)
    }

    @Test func samePipelineAndSeedGiveTheSameValuesTwice() throws {
        let pipeline = try Pipeline(contentsOfFile: Self.path("comodule-ride"))
        var runs: [[DerivedValue]] = []
        var recordings: [[String: [(UInt64, Double)]]] = []
        for run in 0..<2 {
            let directory = makeTemporaryDirectory("determinism\(run)") + "/rec"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var values: [DerivedValue] = []
            _ = try PipelineSimulation.record(pipeline, to: directory, duration: .seconds(60)) { values.append($0) }
            runs.append(values)
            recordings.append(try Self.derivedMessages(directory))
        }
        #expect(runs[0].count > 10)
        #expect(runs[0] == runs[1])
        #expect(recordings[0].keys.sorted() == recordings[1].keys.sorted())
        for (topic, messages) in recordings[0] {
            #expect(messages.map(\.0) == recordings[1][topic]!.map(\.0))
            #expect(messages.map(\.1) == recordings[1][topic]!.map(\.1))
        }
    }

    @Test func decodingTheRawStreamsAgainReproducesTheDerivedStreams() throws {
        let pipeline = try Pipeline(contentsOfFile: Self.path("diot-imu"))
        let directory = makeTemporaryDirectory("reproduce") + "/rec"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var live: [DerivedValue] = []
        _ = try PipelineSimulation.record(pipeline, to: directory, duration: .seconds(5)) { live.append($0) }

        // Decode the raw notifications again through the same pipeline, without a recorder.
        let info = try RecordingInfo.load(from: directory)
        let replay = try RecordingReplay(directory: directory)
        let engine = try PipelineEngine(pipeline: pipeline, recorder: nil)
        var replayed: [DerivedValue] = []
        engine.onDerivedValue = { replayed.append($0) }
        let scratch = makeTemporaryDirectory("reproduce-scratch") + "/rec"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let recorder = try Recorder(directory: scratch, session: .init(name: "scratch", source: "replay"))
        let device = try #require(info.devices.first)
        let decoder = try DeviceStreamRecorder(
            recorder: recorder, decoder: DiotDecoder(), identifier: device.identifier,
            name: device.name, recordsTypedStream: { _ in false },
            observer: engine.observe)
        for notification in try replay.rawNotifications(of: device.identifier) {
            try decoder.record(notification)
        }
        try engine.finish()
        try recorder.close()
        #expect(live.count > 1000)
        #expect(replayed == live)
        let recorded = try Self.derivedMessages(directory)
        for name in pipeline.derived.map(\.name) {
            let values = live.filter { $0.name == name }
            #expect(recorded["/derived/\(name)"]?.map(\.0) == values.map(\.logTime))
            #expect(recorded["/derived/\(name)"]?.map(\.1) == values.map(\.value))
        }
    }

    @Test func liveAndCaptureSourcesAreReportedAsNotWired() throws {
        let pipeline = try Pipeline(
            yaml: """
                name: live
                devices:
                  - family: diot
                    source: {live: {address: "AA:BB:CC:DD:EE:FF"}}
                """, file: "live.yaml")
        #expect(pipeline.devices[0].source == .live(address: "AA:BB:CC:DD:EE:FF", name: nil))
        do {
            _ = try PipelineSimulation.record(pipeline, to: makeTemporaryDirectory() + "/rec", duration: .seconds(1))
            Issue.record("expected an error")
        } catch let error as PipelineError {
            #expect(error.code == .unsupportedSource)
            #expect(
                error.description
                    == "live.yaml:3:5: device 'diot': live BLE capture is not wired into this build yet; use a simulated source"
            )
        }
    }

    @Test func fieldThatIsNotNumericIsARuntimeErrorAtTheInput() throws {
        let pipeline = try Pipeline(
            yaml: """
                name: f
                devices:
                  - family: jacquard
                    source: {simulated: {seed: 1}}
                derived:
                  - name: g
                    from: {topic: /jacquard/*/gesture, field: gesture}
                """, file: "f.yaml")
        do {
            _ = try PipelineSimulation.record(pipeline, to: makeTemporaryDirectory() + "/rec", duration: .seconds(60))
            Issue.record("expected an error")
        } catch let error as RecordingError {
            #expect(
                error.message.hasPrefix("f.yaml:7:11: field 'gesture' is not a numeric field of /jacquard/"),
                "\(error.message)")
            #expect(
                error.message.hasSuffix(
                    "(tlm/msg/JacquardGesture; numeric fields: gesture_id, component_id, timestamp_ticks)"))
        }
    }
}
