import Benchmark
import Devices

/// Comodule frames (recorder profile v1) through the property table.
func profileBenchmarks() {
    let comodule = NotificationInput.comodule(targetBytes: 1_000_000)
    Benchmark("Comodule frames decode, Swift (1 MB/iteration)", configuration: decodeConfiguration) { benchmark in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(comodule.decode(with: ComoduleDecoder())) }
    }
}
