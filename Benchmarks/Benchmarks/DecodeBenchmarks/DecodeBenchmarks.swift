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

    // The limit: a hand-written loop over the same bytes that reads each
    // 5-byte record straight from memory with the same value rules, no
    // decoder types, no validation beyond the length.
    Benchmark(
        "DIoT decode, hand-written loop (the limit), 1 MB per iteration (throughput = MB/s)",
        configuration: .init(
            metrics: [.throughput, .wallClock, .mallocCountTotal, .instructions],
            maxDuration: .seconds(5), maxIterations: 200)
    ) { benchmark in
        var checksum = 0.0
        var values = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for (_, bytes) in input.packets {
                bytes.withUnsafeBytes { raw in
                    guard raw.count % 5 == 0 else { return }
                    var offset = 0
                    while offset < raw.count {
                        let code = raw[offset]
                        let value = raw.loadUnaligned(fromByteOffset: offset + 1, as: UInt32.self).littleEndian
                        checksum += handWrittenNumericValue(code: code, raw: value)
                        values += 1
                        offset += 5
                    }
                }
            }
        }
        benchmark.stopMeasurement()
        blackHole(checksum)
        blackHole(values)
    }
}

/// The numeric value of a DIoT record by feature code, as a switch over the
/// spec's type table (floats, ints, bools, dates; unknown codes as raw).
@inline(__always)
func handWrittenNumericValue(code: UInt8, raw: UInt32) -> Double {
    switch code {
    case 4, 18, 20, 28, 29, 31, 39, 16, 17, 21, 43: Double(raw)
    case 15, 27, 30, 32, 35, 38, 42: raw & 0xFF == 1 ? 1 : 0
    case 1...43: Double(Float(bitPattern: raw))
    default: Double(raw)
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
