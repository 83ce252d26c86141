import Benchmark
import BenchmarkSupport
import CDecoders
import Devices

/// DIoT data-channel decoding: the Swift decoder and the plain C one on the
/// same 1 MB of simulated notifications.
func diotBenchmarks() {
    let input = DiotInput.make(targetBytes: 1_000_000)

    Benchmark("DIoT decode, Swift (1 MB/iteration)", configuration: decodeConfiguration) { benchmark in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(input.decodeSwift()) }
    }

    Benchmark("DIoT decode, C -O2 one call per packet (1 MB/iteration)", configuration: decodeConfiguration) {
        benchmark in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(input.decodeC()) }
    }

    Benchmark("DIoT decode, C -O2 one call per batch (1 MB/iteration)", configuration: decodeConfiguration) {
        benchmark in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(input.decodeCBatch()) }
    }
}

/// Simulated DIoT notifications to decode.
struct DiotInput: Sendable {
    let packets: [(DiotChannel, [UInt8])]
    /// The same packets back to back, for the batch C decoder.
    let flat: [UInt8]
    let lengths: [UInt32]
    let channels: [UInt8]

    init(packets: [(DiotChannel, [UInt8])]) {
        self.packets = packets
        flat = packets.flatMap(\.1)
        lengths = packets.map { UInt32($0.1.count) }
        channels = packets.map(\.0.rawValue)
    }

    static func make(targetBytes: Int) -> DiotInput {
        var simulator = DiotSimulator(seed: 1)
        var packets: [(DiotChannel, [UInt8])] = []
        var bytes = 0
        while bytes < targetBytes {
            let notification = simulator.next()
            packets.append((notification.channel, notification.bytes))
            bytes += notification.bytes.count
        }
        let input = DiotInput(packets: packets)
        let swift = input.decodeSwift()
        let c = input.decodeC()
        let batch = input.decodeCBatch()
        check(swift == c && swift == batch, "the Swift and C DIoT decoders disagree: \(swift), \(c), \(batch)")
        print(
            "DIoT input: \(packets.count) notifications, \(bytes) bytes, \(swift.values) values per iteration;"
                + " Swift and C decoders agree")
        return input
    }

    /// Decodes every packet with the Swift decoder: value count and sum.
    func decodeSwift() -> DecodeTotals {
        let decoder = DiotDecoder()
        var totals = DecodeTotals()
        for (channel, bytes) in packets {
            guard case .records(let records) = try? decoder.decode(bytes, channel: channel) else { continue }
            for record in records { totals.add(record.value.numericValue) }
        }
        return totals
    }

    /// Decodes every packet with the C decoder: value count and sum.
    func decodeC() -> DecodeTotals {
        var totals = DecodeTotals()
        var out = [c_diot_record](repeating: c_diot_record(), count: 64)
        out.withUnsafeMutableBufferPointer { records in
            for (channel, bytes) in packets {
                let count = bytes.withUnsafeBufferPointer { raw in
                    c_diot_decode(raw.baseAddress, raw.count, channel.rawValue, records.baseAddress, records.count)
                }
                for index in 0..<Int(max(count, 0)) { totals.add(records[index].value) }
            }
        }
        return totals
    }
}

extension DiotInput {
    /// Decodes every packet with one call of the batch C decoder.
    func decodeCBatch() -> DecodeTotals {
        var values = 0
        let sum = flat.withUnsafeBufferPointer { data in
            lengths.withUnsafeBufferPointer { lengths in
                channels.withUnsafeBufferPointer { channels in
                    c_diot_decode_batch(
                        data.baseAddress, lengths.baseAddress, channels.baseAddress, lengths.count, &values)
                }
            }
        }
        return DecodeTotals(values: values, sum: sum)
    }
}

/// What a decode pass produced, to compare decoders and keep the work alive.
struct DecodeTotals: Equatable, CustomStringConvertible {
    var values = 0
    var sum = 0.0

    @inline(__always) mutating func add(_ value: Double) {
        values += 1
        sum += value
    }

    var description: String { "\(values) values, sum \(sum)" }
}
