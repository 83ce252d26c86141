@_spi(Benchmarks) import DeviceRecording
import Devices
import Recording
import TestSupport
import Testing

/// The benchmarks' baseline without estimators: a recorder given preset
/// sample times stamps each clock's values with them, in order, exactly as
/// one given the same times as fitted times (which still runs its
/// estimators), records no clock models, and leaves the deliveries past the
/// preset times on their receive time.
@Suite struct PresetSampleTimesTests {
    typealias Toy = TwoClockNotificationTests

    /// Records the toy device's deliveries (the first `surveyed` of them
    /// surveyed for the times) with the survey's times preset, or given as fitted times.
    static func recording(preset: Bool, surveyed: Int) throws -> RecordingReader {
        let deliveries = Toy.deliveries()
        let survey = DeviceClockSurvey(decoder: Toy.Decoder())
        for (receive, values) in deliveries.prefix(surveyed) {
            survey.add(
                RawNotification(
                    characteristic: Toy.characteristic, bytes: values.flatMap(Toy.record), receiveTime: receive))
        }
        let times = survey.fittedTimes()
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(directory: directory, session: .init(name: "preset", source: "test"), startTime: 0)
        let device =
            preset
            ? try DeviceStreamRecorder(
                recorder: recorder, decoder: Toy.Decoder(), identifier: "T", name: "T", presetSampleTimes: times)
            : try DeviceStreamRecorder(
                recorder: recorder, decoder: Toy.Decoder(), identifier: "T", name: "T", fittedSampleTimes: times)
        for (receive, values) in deliveries {
            try device.record(
                RawNotification(
                    characteristic: Toy.characteristic, bytes: values.flatMap(Toy.record), receiveTime: receive))
        }
        try recorder.close(at: Toy.start + 20_000_000_000)
        return try RecordingReader(directory: directory)
    }

    @Test func presetTimesAreTheFittedTimesWithoutEstimatorsOrModels() throws {
        let preset = try Self.recording(preset: true, surveyed: .max)
        let fitted = try Self.recording(preset: false, surveyed: .max)
        for topic in ["/diot/T/ticked", "/diot/T/level"] {
            let times = try preset.messages(topics: [topic]).map { ($0.logTime, $0.publishTime) }
            let reference = try fitted.messages(topics: [topic]).map { ($0.logTime, $0.publishTime) }
            #expect(times.count == 1_200, "\(topic)")
            #expect(times.map(\.0) == reference.map(\.0) && times.map(\.1) == reference.map(\.1), "\(topic)")
            #expect(times.filter { $0.1 < $0.0 }.count > 1_000, "\(topic)")
        }
        #expect(!preset.topics.contains { $0.contains("/clock/") })
        #expect(fitted.topics.contains("/diot/T/clock/ticks"))
    }

    @Test func deliveriesPastThePresetTimesKeepTheirReceiveTime() throws {
        // 400 deliveries after the rate report; the first 201 surveyed: 200 of them timed.
        let preset = try Self.recording(preset: true, surveyed: 201)
        for topic in ["/diot/T/ticked", "/diot/T/level"] {
            let times = try preset.messages(topics: [topic]).map { ($0.logTime, $0.publishTime) }
            #expect(times.count == 1_200, "\(topic)")
            #expect(times.prefix(600).filter { $0.1 < $0.0 }.count > 500, "\(topic)")
            #expect(times.dropFirst(600).allSatisfy { $0.1 == $0.0 }, "\(topic)")
        }
    }
}
