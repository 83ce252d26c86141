import DeviceClocks
import DeviceRecording
import Devices
import ROS2
import Recording
import TestSupport
import Testing

/// A notification whose values have two clocks (a tick counter and a
/// nominal rate, interleaved) is timed clock by clock exactly as if each
/// clock's values had come in a notification of their own at the same
/// instant: the recorder's path for one clock per notification and its path
/// for several give the same sample times.
@Suite struct TwoClockNotificationTests {
    static let start: UInt64 = 1_700_000_000_000_000_000

    /// One value of the toy device: stream 0 is ticked (clock 0, 1 kHz
    /// ticks), stream 1 is one sample of a nominal-rate clock (clock 1),
    /// stream 2 reports clock 1's rate.
    struct Value: RecordableValue, Encodable, Sendable {
        var stream: Int
        var raw: UInt32

        static let schema = MessageSchema(name: "toy/msg/Reading", text: "uint32 raw\n")

        var streamKey: Int { stream }
        var streamSpec: RecordedStream {
            RecordedStream(name: ["ticked", "level", "rate"][stream], schema: Self.schema, isNumeric: true)
        }
        func encode(into cdr: inout CDRWriter) -> Double? {
            cdr.write(raw)
            return Double(raw)
        }
        var sampleTiming: SampleTiming {
            switch stream {
            case 0: .ticks(UInt64(raw), clock: 0)
            case 1: .nominalRate(clock: 1)
            default: .setsRate(hertz: Double(raw), clock: 1)
            }
        }
        static func sampleClock(_ key: Int) -> SampleClock? {
            switch key {
            case 0: SampleClock(name: "ticks", kind: .ticks(.init(tickRate: 1000, tickBits: 32)))
            case 1: SampleClock(name: "level", kind: .nominalRate)
            default: nil
            }
        }
    }

    /// Five-byte records: the stream, then a little-endian `uint32`.
    struct Decoder: PacketDecoder {
        struct Failure: Error, CustomStringConvertible {
            var description: String { "not five-byte records" }
        }
        static var family: DeviceFamily { .diot }

        mutating func decode(_ notification: RawNotification, emit: (Value) -> Void) throws(Failure) {
            let bytes = notification.bytes
            guard bytes.count % 5 == 0 else { throw Failure() }
            for offset in stride(from: 0, to: bytes.count, by: 5) {
                let raw = (1...4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * ($1 - 1)) }
                emit(Value(stream: Int(bytes[offset]), raw: raw))
            }
        }
    }

    static let characteristic = CharacteristicUUID(short: 0xFEE1)

    static func record(_ value: Value) -> [UInt8] {
        [UInt8(value.stream)] + (0..<4).map { UInt8(truncatingIfNeeded: value.raw >> (8 * $0)) }
    }

    /// Every 30 ms (0–9 ms late): three ticked samples 10 ms apart and three
    /// level samples (100 Hz), interleaved; after a report of the level's rate.
    static func deliveries() -> [(receive: UInt64, values: [Value])] {
        var state: UInt64 = 7
        var result: [(receive: UInt64, values: [Value])] = [(start, [Value(stream: 2, raw: 100)])]
        for index in 0..<400 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let receive = start + 40_000_000 + UInt64(index) * 30_000_000 + (state >> 33) % 9_000_000
            var values: [Value] = []
            for sample in 0..<3 {
                values.append(Value(stream: 0, raw: UInt32(5_000 + index * 30 + sample * 10)))
                values.append(Value(stream: 1, raw: UInt32(index * 3 + sample)))
            }
            result.append((receive, values))
        }
        return result
    }

    /// Records the deliveries, each as one notification or split into one per stream at the same instant.
    static func recording(split: Bool) throws -> RecordingReader {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(directory: directory, session: .init(name: "two", source: "test"), startTime: 0)
        let device = try DeviceStreamRecorder(recorder: recorder, decoder: Decoder(), identifier: "T", name: "T")
        for (receive, values) in deliveries() {
            let groups = split ? [0, 1, 2].map { stream in values.filter { $0.stream == stream } } : [values]
            for group in groups where !group.isEmpty {
                try device.record(
                    RawNotification(
                        characteristic: characteristic, bytes: group.flatMap(record), receiveTime: receive))
            }
        }
        try recorder.close(at: start + 20_000_000_000)
        return try RecordingReader(directory: directory)
    }

    @Test func twoClocksInOneNotificationAreTimedAsApart() throws {
        let together = try Self.recording(split: false)
        let apart = try Self.recording(split: true)
        for topic in ["/diot/T/ticked", "/diot/T/level"] {
            let times = try together.messages(topics: [topic]).map { ($0.logTime, $0.publishTime) }
            let reference = try apart.messages(topics: [topic]).map { ($0.logTime, $0.publishTime) }
            #expect(times.count == 1_200, "\(topic)")
            #expect(times.map(\.0) == reference.map(\.0) && times.map(\.1) == reference.map(\.1), "\(topic)")
            // Timed: strictly increasing, none after its receipt, and not all on receive time.
            #expect(zip(times, times.dropFirst()).allSatisfy { $0.1 < $1.1 }, "\(topic)")
            #expect(times.allSatisfy { $0.1 <= $0.0 }, "\(topic)")
            #expect(times.filter { $0.1 < $0.0 }.count > 1_000, "\(topic)")
        }
        // Within a notification the ticked samples are 10 ms apart (1 kHz ticks, a fit within its drift bound).
        let ticked = try together.messages(topics: ["/diot/T/ticked"]).map { Int64($0.publishTime) }
        for index in stride(from: 600, to: 1_200, by: 3) {
            #expect(abs(ticked[index + 1] - ticked[index] - 10_000_000) <= 10_000)
        }
        #expect(try together.messages(topics: ["/diot/T/clock/ticks"]).count >= 2)
        #expect(try together.messages(topics: ["/diot/T/clock/level"]).count >= 2)
    }
}
