import Benchmark
import BenchmarkSupport
import Foundation
import Recording
import Snapshots

/// The flight recorder (issue 39, item 6): the record path into the ring
/// against recording to disk (durability `none`), paired and alternating;
/// the ring's bound held while 10× the messages go through it; and the time
/// from a trigger to a closed snapshot of 2 minutes at 10 kHz.
func snapshotBenchmarks(payload: [UInt8]) {
    let messages = 1_000_000
    let ratio = BenchmarkMetric.custom(
        "ring record throughput ÷ disk record (%)", polarity: .prefersLarger, useScalingFactor: false)
    let alternation = Alternation()
    Benchmark(
        "Record 1M DIoT messages into the snapshot ring ÷ to disk (durability none), paired",
        configuration: .init(metrics: [ratio], maxDuration: .seconds(30), maxIterations: 15)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            var disk = Duration.zero
            var ring = Duration.zero
            for runsDisk in alternation.order() {
                if runsDisk {
                    var directory = ""
                    disk = ContinuousClock().measure {
                        directory = recordMessages(messages, payload: payload, durability: .none)
                    }
                    try? FileManager.default.removeItem(atPath: directory)
                } else {
                    // 1M messages 1 µs apart are 1 s of log time: a 200 ms ring evicts most of them.
                    ring = ContinuousClock().measure {
                        blackHole(recordIntoRing(messages, spacing: 1_000, payload: payload, keep: .milliseconds(200)))
                    }
                }
            }
            let percent = Int((100 * (disk / ring)).rounded())
            benchmark.measurement(ratio, percent)
            print(
                "paired: disk \(Int(disk / .milliseconds(1))) ms, ring \(Int(ring / .milliseconds(1))) ms: \(percent) %"
            )
        }
    }

    let held = BenchmarkMetric.custom("ring peak ÷ bound (%)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark(
        "Ring of 4 MiB fed 10M DIoT messages (10× the 1M case): its peak against its bound",
        configuration: .init(
            metrics: [held, .peakMemoryResident, .wallClock], maxDuration: .seconds(60), maxIterations: 3)
    ) { benchmark in
        let bound = 4 << 20
        for _ in benchmark.scaledIterations {
            let run = recordIntoRing(10 * messages, spacing: 1_000, payload: payload, keep: nil, keepBytes: bound)
            let percent = Int((100 * Double(run.ring.peakBytes) / Double(bound)).rounded())
            benchmark.measurement(held, percent)
            print(
                "ring: bound \(bound) B, peak \(run.ring.peakBytes) B, held \(run.ring.heldBytes) B, "
                    + "evicted \(run.ring.evictedChunkCount) chunks")
        }
    }

    Benchmark(
        "Trigger to a closed snapshot of 2 minutes at 10 kHz (1.2M messages)",
        configuration: .init(metrics: [.wallClock], maxDuration: .seconds(60), maxIterations: 5)
    ) { benchmark in
        // 10 kHz over 6 streams for 2 minutes, in a ring that keeps 2 minutes.
        let run = recordIntoRing(1_200_000, spacing: 100_000, payload: payload, keep: .seconds(120))
        let contents = run.ring.contents()
        let first = contents.chunks.first?.startTime ?? 0
        let last = contents.chunks.last?.endTime ?? 0
        let writer = SnapshotWriter(session: .init(name: "bench", source: "benchmark"), configuration: .init())
        for _ in benchmark.scaledIterations {
            let directory = FileManager.default.currentDirectoryPath + "/.build/tlm-snapshot-\(UUID().uuidString)"
            benchmark.startMeasurement()
            let written = try! writer.write(
                contents,
                window: SnapshotWindow(
                    start: first, end: last,
                    triggers: [SnapshotTrigger(time: last, source: .api, reason: "benchmark")]),
                into: directory)
            benchmark.stopMeasurement()
            check(written.messageCount >= 1_200_000, "the snapshot holds \(written.messageCount) messages")
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
}

/// A ring-mode recording of `messages` copies of `payload` on 6 streams,
/// `spacing` ns apart, closed; the spool is removed.
func recordIntoRing(
    _ messages: Int, spacing: UInt64, payload: [UInt8], keep: Duration?, keepBytes: Int? = nil
) -> (ring: SnapshotRing, count: Int) {
    let ring = try! SnapshotRing(keep: keep, keepBytes: keepBytes)
    let directory = FileManager.default.currentDirectoryPath + "/.build/tlm-ring-\(UUID().uuidString)"
    let recorder = try! Recorder(ring: ring, directory: directory, session: .init(name: "bench", source: "benchmark"))
    writeMessages(messages, spacing: spacing, payload: payload, into: recorder)
    try! recorder.close()
    try? FileManager.default.removeItem(atPath: directory)
    return (ring, messages)
}
