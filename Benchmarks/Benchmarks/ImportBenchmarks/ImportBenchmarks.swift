import Benchmark
import BenchmarkSupport
import Devices
import Foundation

/// `tlm import` of a btsnoop capture against `tshark -r FILE -Y btatt -T
/// fields -e btatt.handle -e btatt.value` (Debian's `tshark`, installed by
/// `make bench`) extracting the same notifications from the same file.
/// Both are whole processes, started the same way, in the same run; each
/// iteration is one process run. `tlm` is the repository's release build
/// (`make build`, which `make bench` runs first).
///
/// The capture is generated once and cached in the temporary directory: a
/// DIoT IMU (the simulator at 1 kHz per channel) advertising, connecting,
/// discovered, then notifying `TLM_IMPORT_BENCH_NOTIFICATIONS` (default
/// 500,000) values as H4 ACL packets, the longer ones in two fragments.
/// The setup checks that both tools find every notification before
/// anything is timed, and prints `tlm`'s peak resident memory on this
/// capture and on one a tenth of its size (bounded memory: they are close).
let benchmarks: @Sendable () -> Void = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    let tlm = root + "/.build/release/tlm"
    let count = Int(ProcessInfo.processInfo.environment["TLM_IMPORT_BENCH_NOTIFICATIONS"] ?? "") ?? 500_000
    let capture = ImportFixture.capture(notifications: count)
    let small = ImportFixture.capture(notifications: count / 10)
    let tshark = "/usr/bin/tshark"
    let tsharkArguments = ["-r", capture, "-Y", "btatt", "-T", "fields", "-e", "btatt.handle", "-e", "btatt.value"]

    // Same notifications from both before timing anything.
    let theirs = run(tshark, tsharkArguments).output
    let notificationLines = theirs.split(separator: "\n").filter { $0.hasPrefix("0x0010") || $0.hasPrefix("0x0013") }
    check(
        notificationLines.count == count, "tshark found \(notificationLines.count) notifications, expected \(count)")
    let (ours, peak) = importOnce(tlm, capture)
    check(ours.contains("Imported \(count) values of 1 device(s)"), "tlm import said: \(ours)")
    let (_, smallPeak) = importOnce(tlm, small)
    print("tlm import peak RSS: \(peak / 1024) MiB on \(count) notifications, \(smallPeak / 1024) MiB on \(count / 10)")

    let configuration = Benchmark.Configuration(metrics: [.wallClock], maxDuration: .seconds(120), maxIterations: 5)
    Benchmark(
        "tlm import of \(count / 1000)k notifications from btsnoop (whole process)",
        configuration: configuration
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(importOnce(tlm, capture, timing: benchmark))
        }
    }
    Benchmark("tshark -Y btatt -T fields, same capture (whole process)", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(run(tshark, tsharkArguments, timing: benchmark))
        }
    }
}

/// Imports `capture` into a fresh directory (removed after, outside the
/// timed span) and returns the summary and the process's peak resident
/// memory in KiB.
func importOnce(
    _ tlm: String, _ capture: String, timing benchmark: Benchmark? = nil
) -> (
    output: String, peakKiB: Int
) {
    let output = NSTemporaryDirectory() + "tlm-import-bench-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: output) }
    return run(tlm, ["import", capture, "--output", output], timing: benchmark)
}

/// Runs a process to completion; its standard output and peak resident
/// memory (KiB). With `benchmark`, only the process's lifetime is timed
/// (from its launch to its exit), as hyperfine times a command: making and
/// removing the files around it (for `tlm`, deleting the 65 MB recording)
/// is not part of either tool's work.
func run(
    _ executable: String, _ arguments: [String], timing benchmark: Benchmark? = nil
) -> (
    output: String, peakKiB: Int
) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    // `/usr/bin/time -f %M` reports the peak RSS of the one child on stderr.
    let stderrFile = FileManager.default.temporaryDirectory.appendingPathComponent("tlm-bench-err-\(UUID().uuidString)")
    let stdoutFile = FileManager.default.temporaryDirectory.appendingPathComponent("tlm-bench-out-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
    _ = FileManager.default.createFile(atPath: stdoutFile.path, contents: nil)
    defer {
        try? FileManager.default.removeItem(at: stderrFile)
        try? FileManager.default.removeItem(at: stdoutFile)
    }
    let timed = FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
    process.arguments = timed ? ["/usr/bin/time", "-f", "%M", executable] + arguments : [executable] + arguments
    process.standardOutput = try! FileHandle(forWritingTo: stdoutFile)
    process.standardError = try! FileHandle(forWritingTo: stderrFile)
    benchmark?.startMeasurement()
    do {
        try process.run()
    } catch {
        fatalError("cannot run \(executable): \(error) (run `make build` and `make setup` first)")
    }
    process.waitUntilExit()
    benchmark?.stopMeasurement()
    check(process.terminationStatus == 0, "\(executable) \(arguments.first ?? "") failed")
    let errors = (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? ""
    let peak = Int(errors.split(separator: "\n").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
    return ((try? String(contentsOf: stdoutFile, encoding: .utf8)) ?? "", peak)
}

/// The cached synthetic captures.
enum ImportFixture {
    /// The path of a btsnoop capture of `notifications` DIoT IMU notifications, written on first use.
    static func capture(notifications: Int) -> String {
        let path = NSTemporaryDirectory() + "tlm-import-bench-\(notifications).btsnoop"
        if FileManager.default.fileExists(atPath: path) { return path }
        var out = Array("btsnoop\0".utf8) + be32(1) + be32(1002)
        var micros: UInt64 = 1_700_000_000_000_000
        func packet(_ type: UInt8, received: Bool, _ bytes: [UInt8]) {
            let stamp = micros + 0x00DC_DDB3_0F2F_8000
            let flags: UInt32 = (received ? 1 : 0) | (type == 2 ? 0 : 2)
            out +=
                be32(UInt32(bytes.count + 1)) + be32(UInt32(bytes.count + 1)) + be32(flags) + be32(0)
                + be32(UInt32(stamp >> 32)) + be32(UInt32(truncatingIfNeeded: stamp)) + [type] + bytes
        }
        func att(_ pdu: [UInt8], received: Bool) {
            let frame = le16(UInt16(pdu.count)) + [4, 0] + pdu
            var at = 0
            while at < frame.count {
                let piece = Array(frame[at..<min(frame.count, at + 27)])
                let field: UInt16 = 0x0040 | (at == 0 ? (received ? 0x2000 : 0) : 0x1000)
                packet(2, received: received, le16(field) + le16(UInt16(piece.count)) + piece)
                at += 27
            }
        }
        let address: [UInt8] = [0x50, 0x44, 0x33, 0x22, 0x11, 0xC0]
        var simulator = DiotSimulator(seed: 1, configuration: .imu(rate: 1000))
        let advertisement = simulator.advertisement()
        packet(
            4, received: true,
            [0x3E, UInt8(12 + advertisement.count + 2), 0x02, 1, 0, 1] + address
                + [UInt8(advertisement.count + 2), UInt8(advertisement.count + 1), 0xFF] + advertisement + [0xC4])
        packet(4, received: true, [0x3E, 19, 0x01, 0, 0x40, 0, 0, 1] + address + [24, 0, 0, 0, 0xF4, 1, 0])
        att([0x08] + le16(1) + le16(0xFFFF) + le16(0x2803), received: false)
        att(
            [0x09, 7] + le16(0x000F) + [0x10] + le16(0x0010) + le16(0xD001)
                + le16(0x0012) + [0x10] + le16(0x0013) + le16(0xD002), received: true)
        for _ in 0..<notifications {
            let note = simulator.next()
            let handle: UInt16 = note.characteristic == CharacteristicUUID(short: 0xD001) ? 0x0010 : 0x0013
            let (seconds, attoseconds) = note.offset.components
            micros = max(
                micros, 1_700_000_000_000_000 + UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000))
            att([0x1B] + le16(handle) + note.bytes, received: true)
            micros += 1
        }
        packet(4, received: true, [0x05, 4, 0, 0x40, 0, 0x13])
        _ = FileManager.default.createFile(atPath: path, contents: Data(out))
        return path
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
    }
    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
