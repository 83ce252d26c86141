import Benchmark
import Devices

/// DIoT data-channel decode throughput.
///
/// The input is the default simulated DIoT device's notifications (IMU
/// packets of 3 records, vitals of 2, ...), about 1 MB in all. One benchmark
/// iteration decodes all of it, so `throughput` (iterations/s) is MB/s, and
/// the values decoded per iteration are printed at setup for values/s.
let benchmarks: @Sendable () -> Void = {
    let input = DiotDecodeInput.make(targetBytes: 1_000_000)

    Benchmark(
        "DIoT decode, 1 MB of notifications per iteration (throughput = MB/s)",
        configuration: .init(
            metrics: [.throughput, .wallClock, .mallocCountTotal, .instructions],
            maxDuration: .seconds(5), maxIterations: 200)
    ) { benchmark in
        let decoder = DiotDecoder()
        var checksum = 0.0
        var values = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for (channel, bytes) in input.packets {
                guard case .records(let records) = try? decoder.decode(bytes, channel: channel) else { continue }
                for record in records {
                    checksum += record.value.numericValue
                    values += 1
                }
            }
        }
        benchmark.stopMeasurement()
        blackHole(checksum)
        blackHole(values)
    }
}

/// Simulated notifications to decode, with their totals.
struct DiotDecodeInput {
    let packets: [(DiotChannel, [UInt8])]
    let byteCount: Int
    let valueCount: Int

    static func make(targetBytes: Int) -> DiotDecodeInput {
        var simulator = DiotSimulator(seed: 1)
        var packets: [(DiotChannel, [UInt8])] = []
        var bytes = 0
        var values = 0
        while bytes < targetBytes {
            let notification = simulator.next()
            packets.append((notification.channel, notification.bytes))
            bytes += notification.bytes.count
            values += notification.records.count
        }
        print("DIoT decode input: \(packets.count) notifications, \(bytes) bytes, \(values) values per iteration")
        return DiotDecodeInput(packets: packets, byteCount: bytes, valueCount: values)
    }
}
