import Benchmark

/// Streams against its peers, same input, same run. Each benchmark is one
/// pass over its input per iteration; read throughput ratios between rows,
/// and `Malloc (total)` divided by the elements for allocations per element.
let benchmarks: @Sendable () -> Void = {
    elementWiseBenchmarks()
    combiningBenchmarks()
    floorBenchmarks()
}

/// The configuration the Streams benchmarks use.
var streamsConfiguration: Benchmark.Configuration {
    .init(metrics: [.throughput, .wallClock, .mallocCountTotal], maxDuration: .seconds(5), maxIterations: 50)
}
