import Benchmark
import BenchmarkSupport
import Foundation

/// The paired rows of ``versus(_:ours:peer:peerName:)``: each iteration runs
/// ours and the peer once each, back to back, and records both times and
/// their ratio.
///
/// The separate rows measure all of ours' iterations, then all of the
/// peer's, a second or more apart. On this kind of shared machine the
/// processor's speed changes for seconds at a time: in one check a plain C
/// loop took 13 ms in some processes and 22 ms in others, and the
/// throttle(0) row's p50 followed it (2.9 ms against 3.8–4.0 ms). A ratio
/// of two p50s measured apart then carries that change, in either
/// direction. A pair's two runs are milliseconds apart, so the machine is
/// the same for both, and the median of the per-pair ratios is the
/// comparison that does not depend on when each side ran. The order
/// alternates from one iteration to the next, so neither side always runs
/// first (with a warmer cache, or right after the other's teardown).
///
/// Only the nonisolated runs are paired. From the main actor the peers take
/// 1–4.7 s per iteration, so the row's two-second budget would hold one or
/// two pairs; and there, one side changes the other: in one process, after
/// a main-actor run of async-algorithms' share or merge, ours' share to 2
/// consumers from the main actor took 215–348 ms per iteration, against
/// 59–67 ms in a process where only ours had run (the process then had 8
/// threads instead of 5, but making 4 more dispatch threads first did not
/// slow it, and it used almost no CPU while idle). The separate rows run each
/// benchmark in a process of its own and do not mix the two.
///
/// Metrics, each a distribution over the iterations:
/// - `Streams (μs)` and `peer (μs)`: the two runs' wall-clock times;
/// - `peer / Streams (×100)`: the pair's ratio, times 100.
enum PairedRuns {
    static let ours = BenchmarkMetric.custom("Streams (μs)", useScalingFactor: false)
    static let peer = BenchmarkMetric.custom("peer (μs)", useScalingFactor: false)
    static let ratio = BenchmarkMetric.custom(
        "peer / Streams (×100)", polarity: .prefersLarger, useScalingFactor: false)

    /// Like ``combiningConfiguration``, with the paired metrics instead of
    /// the wall clock and allocations (which would mix the two sides).
    static var configuration: Benchmark.Configuration {
        var configuration = combiningConfiguration
        configuration.metrics = [ours, peer, ratio]
        return configuration
    }

    /// Registers the pair's benchmark.
    static func register(
        _ name: String, ours: @escaping @Sendable () async -> Drained, peer: @escaping @Sendable () async -> Drained
    ) {
        let alternation = Alternation()
        Benchmark(name, configuration: configuration) { benchmark in
            await measure(benchmark, name, order: alternation.order(), ours: ours, peer: peer)
        }
    }

    /// Runs both sides once, in `order` (`true`: ours), records the pair
    /// and prints it.
    static func measure(
        _ benchmark: Benchmark, _ name: String, order: [Bool], ours: @Sendable () async -> Drained,
        peer: @Sendable () async -> Drained
    ) async {
        let clock = ContinuousClock()
        var oursTime = Duration.zero
        var peerTime = Duration.zero
        for runsOurs in order {
            let start = clock.now
            blackHole(runsOurs ? await ours() : await peer())
            let elapsed = start.duration(to: clock.now)
            if runsOurs {
                oursTime = elapsed
            } else {
                peerTime = elapsed
            }
        }
        let oursMicroseconds = max(1, Int(oursTime / .microseconds(1)))
        let peerMicroseconds = Int(peerTime / .microseconds(1))
        benchmark.measurement(Self.ours, oursMicroseconds)
        benchmark.measurement(Self.peer, peerMicroseconds)
        benchmark.measurement(Self.ratio, peerMicroseconds * 100 / oursMicroseconds)
        print(
            "\(name): Streams \(oursMicroseconds) μs, peer \(peerMicroseconds) μs, "
                + (order.first == true ? "Streams first" : "peer first"))
    }
}
