import Devices
import Foundation
import Recording
import TestSupport

/// A recording for the report's fields, axes and loss lanes: on device
/// `/sim/D1`, a numeric stream `value` (unit `g`, 2 kHz, value i is
/// `sin(i / 40) × 100 + i % 7`) with a loss record (3 lost) at 1.5 s, and a
/// typed IMU stream `imu` (200 Hz: `sensor_id`, six int16 axes, `timestamp_ticks`;
/// axis k of sample i is `(k + 1) × 100 + i % 50 − 25`); on `/sim/D2` a numeric stream
/// `temp` (unit `Cel`, 10 Hz) with no loss, and `/sim/D2/level` with one value (42).
struct FieldsTestRecording {
    static let valueSchema = MessageSchema(name: "test/msg/Value", text: "float64 value")
    static let imuSchema = MessageSchema(
        name: "test/msg/Imu",
        text: """
            uint8 sensor_id
            int16 accel_x
            int16 accel_y
            int16 accel_z
            int16 gyro_x
            int16 gyro_y
            int16 gyro_z
            uint32 timestamp_ticks
            """)
    static let axes = ["accel_x", "accel_y", "accel_z", "gyro_x", "gyro_y", "gyro_z"]
    static let start: UInt64 = 1_800_000_000_000_000_000
    static let lossTime = start + 1_500_000_000

    let directory: String

    /// `seconds` of samples.
    init(seconds: Int = 4, label: String = #function) throws {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 16 << 10
        directory = makeTemporaryDirectory(label) + "/rec"
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "fields", source: "simulate"), startTime: Self.start)
        let value = try recorder.addStream(
            StreamDescriptor(
                topic: "/sim/D1/value", kind: .typed, schema: Self.valueSchema, unit: "[g]", isNumeric: true)
        )
        let imu = try recorder.addStream(StreamDescriptor(topic: "/sim/D1/imu", kind: .typed, schema: Self.imuSchema))
        let temp = try recorder.addStream(
            StreamDescriptor(
                topic: "/sim/D2/temp", kind: .typed, schema: Self.valueSchema, unit: "Cel", isNumeric: true))
        let level = try recorder.addStream(
            StreamDescriptor(topic: "/sim/D2/level", kind: .typed, schema: Self.valueSchema, isNumeric: true))
        func number(_ sample: Double) -> [UInt8] {
            [0, 1, 0, 0] + withUnsafeBytes(of: sample.bitPattern.littleEndian) { Array($0) }
        }
        try recorder.write(level, logTime: Self.start + 2_000_000_000, payload: number(42), numericValue: 42)
        for index in 0..<(seconds * 2000) {
            let time = Self.start + UInt64(index) * 500_000
            if time == Self.lossTime {
                try recorder.recordLoss(stream: value, time: time, count: 3, reason: "test loss", duration: nil)
            }
            let sample = sin(Double(index) / 40) * 100 + Double(index % 7)
            try recorder.write(value, logTime: time, payload: number(sample), numericValue: sample)
            if index % 10 == 0 {
                let i = index / 10
                // CDR: sensor_id, a pad byte, six int16, two pad bytes, uint32.
                var payload: [UInt8] = [0, 1, 0, 0, 1, 0]
                for axis in 0..<6 {
                    let count = Int16((axis + 1) * 100 + i % 50 - 25)
                    payload += withUnsafeBytes(of: count.littleEndian) { Array($0) }
                }
                payload += [0, 0] + withUnsafeBytes(of: UInt32(i).littleEndian) { Array($0) }
                try recorder.write(imu, logTime: time, payload: payload)
            }
            if index % 200 == 0 {
                let celsius = 20 + Double(index / 200) * 0.1
                try recorder.write(temp, logTime: time, payload: number(celsius), numericValue: celsius)
            }
        }
        try recorder.close(at: Self.start + UInt64(seconds) * 1_000_000_000)
    }
}
