import Foundation
import TestSupport
import Testing

/// Issue 36's fuzzing of `tlm serve` with WebSocket control floods
/// (Tests/Python/serve_flood.py): while one client watches every channel and
/// another subscribes and never reads, a third sends thousands of seeded
/// random frames — unsubscribes and subscribes of unknown ids, pings, invalid
/// JSON, unknown opcodes, oversized text frames. A run is a memory outcome
/// when the server's resident memory grows past the bound over its size
/// before the flood; a silent wrong answer when the watching client gets no
/// message during or after the flood; and serve must then end on SIGINT with
/// status 0.
@Suite struct ServeFloodFuzzTests {
    /// How far the server's resident memory may grow over its size before the flood, MiB.
    static let growthBoundMiB = 128

    @Test func controlFloodsLeaveServeBoundedAndServing() throws {
        var random = SplitMix64(seed: 0x36_F100)
        var tally = FuzzTally("serve floods", memoryBoundMiB: 512)
        var growthKiB = 0
        var frames = 0
        for run in 0..<(2 * fuzzScale) {
            let seed = random.next() >> 33
            // Playback at four times real time, or as fast as it goes (the silent client then lags most).
            let pace = run % 2 == 0 ? ["--rate", "4"] : ["--as-fast-as-possible"]
            let serve = try MeasuredRun.start(
                tlmPath, ["serve", HostileTextFuzzTests.recording, "--listen", "127.0.0.1:0", "--loop"] + pace)
            var url: String?
            let deadline = ContinuousClock.now + .seconds(30)
            while url == nil, ContinuousClock.now < deadline {
                if let line = serve.errorsSoFar.split(separator: "\n").first(where: { $0.contains("serving ws://") }),
                    let range = line.range(of: "ws://")
                {
                    url = String(line[range.lowerBound...].prefix { !$0.isWhitespace })
                }
                usleep(20_000)
            }
            let label = "run \(run) (seed \(seed))"
            guard let url else {
                kill(serve.pid, SIGKILL)
                let ended = try serve.wait(timeout: .seconds(10))
                tally.add(.unclear, "\(label): no address; \(FuzzTally.describe(ended))")
                continue
            }
            let flood = try finish(
                try start(
                    repositoryRoot + "/.venv/bin/python",
                    [
                        pythonScript("serve_flood.py"), url, "--pid", "\(serve.pid)", "--seed", "\(seed)",
                        "--frames", "1500", "--seconds", "1",
                    ]), timeout: .seconds(120))
            kill(serve.pid, SIGINT)
            let ended = try serve.wait(timeout: .seconds(20))
            struct Report: Decodable {
                var baselineKib: Int
                var maxRssKib: Int
                var hwmKib: Int
                var frames: Int
                var reconnects: Int
                var messagesDuring: Int
                var messagesAfter: Int
                var aError: String?
            }
            let report = try? JSONOutputDecoding.decoder().decode(Report.self, from: Data(flood.output.utf8))
            let described = "\(label): \(flood.output.prefix(400)) \(flood.errors.suffix(400))"
            if let outcome = tally.classify(ended) {
                tally.add(outcome, "\(described); serve \(FuzzTally.describe(ended))")
            } else if let report {
                growthKiB = max(growthKiB, report.maxRssKib - report.baselineKib)
                frames += report.frames
                if report.maxRssKib - report.baselineKib > Self.growthBoundMiB << 10
                    || report.hwmKib > tally.memoryBoundKiB
                {
                    tally.add(.memory, described)
                } else if report.messagesDuring + report.messagesAfter == 0 || report.aError != nil {
                    tally.add(.silentWrong, "\(described): the watching client got nothing")
                } else {
                    tally.add(.ok, described)
                }
            } else {
                tally.add(.unclear, "the flood client failed: \(described)")
            }
        }
        print("\(tally); \(frames) frames, the server's RSS grew at most \(growthKiB) KiB over its size before")
        #expect(tally.bad == 0, "\(tally)\n\(tally.failures.joined(separator: "\n"))")
    }
}
