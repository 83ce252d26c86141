import Devices
import Foundation
import Recording
import TestSupport

/// Synthetic recordings for the report's tests, written with ``Recorder``
/// at any rate in no time: a numeric stream `/sim/D1/value` (value i at
/// sample i is `sin(i / 40) × 100 + i % 7`), an event stream `/sim/D1/gesture`
/// every 250 ms, and a loss record (1 lost) every 2 s with a 300 ms gap at 5 s.
struct ReportTestRecording {
    static let valueSchema = MessageSchema(name: "test/msg/Value", text: "float64 value")
    static let eventSchema = MessageSchema(name: "test/msg/Gesture", text: "string gesture")
    static let start: UInt64 = 1_800_000_000_000_000_000

    let directory: String
    /// Every value written, with its time.
    let values: [(time: UInt64, value: Double)]
    let eventTimes: [UInt64]
    let lossTimes: [UInt64]

    /// `seconds` of samples at `rate` Hz.
    init(seconds: Int, rate: Int, label: String = #function) throws {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 16 << 10
        directory = makeTemporaryDirectory(label) + "/rec"
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "synthetic", source: "simulate"), startTime: Self.start)
        let value = try recorder.addStream(
            StreamDescriptor(
                topic: "/sim/D1/value", kind: .typed, schema: Self.valueSchema, unit: "[g]", isNumeric: true)
        )
        let gesture = try recorder.addStream(
            StreamDescriptor(topic: "/sim/D1/gesture", kind: .event, schema: Self.eventSchema))
        let period = 1_000_000_000 / UInt64(rate)
        let count = seconds * rate
        var values: [(UInt64, Double)] = []
        var events: [UInt64] = []
        var losses: [UInt64] = []
        var nextEvent = Self.start + 100_000_000
        var nextLoss = Self.start + 1_000_000_000
        for index in 0..<count {
            let time = Self.start + UInt64(index) * period
            while nextEvent <= time {
                let name = Array("swipe \(events.count % 3)".utf8) + [0]
                let length = withUnsafeBytes(of: UInt32(name.count).littleEndian) { Array($0) }
                try recorder.write(gesture, logTime: nextEvent, payload: [0, 1, 0, 0] + length + name)
                events.append(nextEvent)
                nextEvent += 250_000_000
            }
            while nextLoss <= time {
                let gap: Duration? = nextLoss == Self.start + 5_000_000_000 ? .milliseconds(300) : nil
                try recorder.recordLoss(stream: value, time: nextLoss, count: 1, reason: "test loss", duration: gap)
                losses.append(nextLoss)
                nextLoss += 2_000_000_000
            }
            let sample = sin(Double(index) / 40) * 100 + Double(index % 7)
            let bytes = withUnsafeBytes(of: sample.bitPattern.littleEndian) { Array($0) }
            try recorder.write(value, logTime: time, payload: [0, 1, 0, 0] + bytes, numericValue: sample)
            values.append((time, sample))
        }
        try recorder.close(at: Self.start + UInt64(count) * period)
        self.values = values
        eventTimes = events
        lossTimes = losses
    }
}
