import DeviceRecording
import Devices
import Families
import Foundation
import Recording

/// A recording of `samples` numeric samples and its CSV export, made once
/// and cached in the temporary directory (shared by the query, memory and
/// export benchmarks): a DIoT device notifying one acc_x sample per
/// notification at 1 kHz from a whole second, written through the real
/// decode → record path, so bucket edges are whole seconds for every tool.
public struct SampleRecordingFixture: Sendable {
    /// The device identifier of the one DIoT device.
    public static let identifier = "0000000000000000000000000000b0b0"
    /// The glob that names the sample stream.
    public static let topic = "/diot/*/acc_x"
    /// The recording directory.
    public let directory: String
    /// The stream's CSV export (one file).
    public let csv: String

    /// The recording's layout, part of the cache's name: raise it whenever
    /// the recorder writes recordings differently (2: segments in the
    /// recording's root, raw notifications in chunks of their own), so a
    /// cached recording of an older layout is not measured by mistake.
    static let layout = 2

    /// Makes the recording and its CSV export with `tlm` unless a complete
    /// one of the same size, layout and index schema is cached.
    public init(samples: Int, tlm: String) {
        let base =
            NSTemporaryDirectory() + "tlm-query-bench-\(samples)-layout\(Self.layout)-\(RecordingIndexSchema.current)"
        directory = base + "/recording"
        csv = base + "/acc_x.csv"
        guard !FileManager.default.fileExists(atPath: base + "/complete") else { return }
        try? FileManager.default.removeItem(atPath: base)
        do {
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            let start: UInt64 = 1_700_000_000_000_000_000
            let recorder = try Recorder(
                directory: directory, session: .init(name: "query-bench", source: "benchmark"), startTime: start)
            let device = try DeviceStreamRecorder(
                recorder: recorder, decoder: DiotDecoder(), identifier: Self.identifier, name: "DIoT-B0B0")
            guard let channel = DiotChannel(1) else { fatalError("DIoT channel 1 is unknown") }
            let characteristic = DiotGATT.characteristic(for: channel)
            var value: Float = 0
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            for index in 0..<samples {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                value += Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 100_000
                let bits = value.bitPattern
                let bytes: [UInt8] = [
                    9, UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8),
                    UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 24),
                ]
                try device.record(
                    RawNotification(
                        characteristic: characteristic, bytes: bytes,
                        receiveTime: start + UInt64(index) * 1_000_000))
            }
            try recorder.close(at: start + UInt64(samples) * 1_000_000)
        } catch {
            fatalError("cannot make the benchmark recording in \(base): \(error)")
        }
        _ = processOutput(tlm, ["export", directory, "--format", "csv", "--topic", Self.topic, "--output", csv])
        _ = FileManager.default.createFile(atPath: base + "/complete", contents: nil)
    }
}
