import Benchmark

/// Decode throughput per family. Each benchmark decodes about 1 MB of a
/// family's simulated notifications per iteration, so `throughput`
/// (iterations/s) reads as MB/s; the values per iteration are printed at
/// setup, for values/s. Where a plain C decoder of the same format exists
/// (`Sources/CDecoders`, -O2), it runs on the same input in the same run.
let benchmarks: @Sendable () -> Void = {
    diotBenchmarks()
    jacquardBenchmarks()
    profileBenchmarks()
}

/// The configuration every decode benchmark uses.
var decodeConfiguration: Benchmark.Configuration {
    .init(metrics: [.throughput, .wallClock, .mallocCountTotal], maxDuration: .seconds(5), maxIterations: 300)
}
