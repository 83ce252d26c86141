import DeviceRecording
import Devices
import Families
import Foundation
import ROS2
import TestSupport
import Testing

@testable import Recording

/// Decoding a recording's raw streams again through the family decoders
/// reproduces its typed streams exactly: same values, same times, same bytes
/// after the sample time (`stamp`, which is the message's publish time and
/// never after its log time).
@Suite struct RecordingReplayTests {
    /// Re-decodes a device's raw notifications and re-encodes each value as
    /// the recorder did; compares with the recorded typed messages.
    static func check<D: PacketDecoder>(
        _ replay: RecordingReplay, reader: RecordingReader, family: DeviceFamily,
        device: String, decoder: D
    ) async throws -> Int where D.Value: RecordableValue {
        var replayed: [String: [(UInt64, [UInt8])]] = [:]
        for await (time, value) in try replay.values(of: device, decoder: decoder) {
            var cdr = CDRWriter()
            _ = value.encode(into: &cdr)
            replayed[StreamDescriptor.topic(family: family, device: device, stream: value.streamSpec.name), default: []]
                .append((time, cdr.bytes))
        }
        let typedTopics = reader.topics.filter {
            $0.hasPrefix("/\(family.rawValue)/\(device)/") && !$0.contains("/raw/") && !$0.contains("/clock/")
        }
        #expect(Set(replayed.keys) == Set(typedTopics), "\(family)")
        var compared = 0
        for topic in typedTopics {
            let messages = try reader.messages(topics: [topic])
            for message in messages {
                let definition = try ROS2MessageDefinition(parsing: "builtin_interfaces/Time stamp")
                let stamp = try #require(definition.decode(Array(message.payload.prefix(12))).first?.value)
                #expect(stamp == .int(Int64(message.publishTime)), "\(topic)")
                #expect(message.publishTime <= message.logTime, "\(topic)")
            }
            // The body after the header and the stamp, as the value encodes it.
            let recorded = messages.map { ($0.logTime, [0, 1, 0, 0] + Array($0.payload.dropFirst(12))) }
            let again = replayed[topic] ?? []
            #expect(recorded.count == again.count, "\(topic)")
            for (a, b) in zip(recorded, again) where a.0 != b.0 || a.1 != b.1 {
                Issue.record("\(topic): recorded (\(a.0), \(a.1)) but replay gives (\(b.0), \(b.1))")
                break
            }
            compared += recorded.count
        }
        return compared
    }

    @Test func reDecodingTheRawStreamsReproducesEveryTypedStream() async throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, session: .init(name: "replay", source: "simulate"), startTime: 0)
        let start: UInt64 = 1_700_000_000_000_000_000
        var diot = DiotSimulator(seed: 2, configuration: .stress)
        var jacquard = JacquardSimulator(seed: 2, configuration: .stress)
        var comodule = ComoduleSimulator(seed: 2)
        var fjorden = FjordenSimulator(seed: 2)
        var obvious = ObviousSimulator(seed: 2)
        let recorders: [(any DeviceRecorder, () -> RawNotification)] = [
            (
                try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(), identifier: "D", name: "D"),
                { diot.next().rawNotification(startTime: start) }
            ),
            (
                try DeviceStreamRecorder(recorder: recorder, decoder: JacquardDecoder(), identifier: "J", name: "J"),
                { jacquard.next().rawNotification(startTime: start) }
            ),
            (
                try DeviceStreamRecorder(recorder: recorder, decoder: ComoduleDecoder(), identifier: "C", name: "C"),
                { comodule.next().rawNotification(startTime: start) }
            ),
            (
                try DeviceStreamRecorder(recorder: recorder, decoder: FjordenDecoder(), identifier: "F", name: "F"),
                { fjorden.next().rawNotification(startTime: start) }
            ),
            (
                try DeviceStreamRecorder(recorder: recorder, decoder: ObviousDecoder(), identifier: "O", name: "O"),
                { obvious.next().rawNotification(startTime: start) }
            ),
        ]
        for (device, next) in recorders {
            for _ in 0..<1500 { try device.record(next()) }
        }
        try recorder.close()
        #expect(try RecordingInfo.load(from: directory).lossCount > 0)  // the stress presets send malformed packets

        let replay = try RecordingReplay(directory: directory)
        let reader = try RecordingReader(directory: directory)
        var total = 0
        total += try await Self.check(replay, reader: reader, family: .diot, device: "D", decoder: DiotDecoder())
        total += try await Self.check(
            replay, reader: reader, family: .jacquard, device: "J", decoder: JacquardDecoder())
        total += try await Self.check(
            replay, reader: reader, family: .comodule, device: "C", decoder: ComoduleDecoder())
        total += try await Self.check(replay, reader: reader, family: .fjorden, device: "F", decoder: FjordenDecoder())
        total += try await Self.check(replay, reader: reader, family: .obvious, device: "O", decoder: ObviousDecoder())
        #expect(total > 5000)
    }

    @Test func offsetsSelectAWindowAndUnknownDevicesAreAnError() async throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, session: .init(name: "window", source: "simulate"), startTime: 0)
        var simulator = DiotSimulator(seed: 5)
        let diot = try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(), identifier: "D", name: "D")
        for _ in 0..<1000 { try diot.record(simulator.next().rawNotification(startTime: 1_000_000_000)) }
        try recorder.close()
        let window = try RecordingReplay(directory: directory, from: .seconds(2), to: .seconds(3))
        var times: [UInt64] = []
        for await (time, _) in try window.values(of: "D", decoder: DiotDecoder()) { times.append(time) }
        #expect(!times.isEmpty)
        #expect(times.allSatisfy { $0 >= 3_000_000_000 && $0 < 4_000_000_000 })
        #expect(throws: RecordingError.self) { _ = try window.rawNotifications(of: "NOPE") }
    }
}
