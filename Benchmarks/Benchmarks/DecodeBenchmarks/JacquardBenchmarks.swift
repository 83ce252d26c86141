import Benchmark
import BenchmarkSupport
import CDecoders
import Devices

/// Jacquard decoding: gesture notifications (fragment reassembly + protobuf)
/// against a plain C decoder of the same path; the simulator's mixed stream
/// (gestures, touch frames, battery, IMU); and the IMU stream alone.
func jacquardBenchmarks() {
    let gestures = JacquardGestureInput.make(targetBytes: 1_000_000)
    let mixed = NotificationInput.jacquard(targetBytes: 1_000_000, imuOnly: false)
    let imu = NotificationInput.jacquard(targetBytes: 1_000_000, imuOnly: true)

    Benchmark("Jacquard gestures decode, Swift (1 MB/iteration)", configuration: decodeConfiguration) { benchmark in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(gestures.decodeSwift()) }
    }
    Benchmark("Jacquard gestures decode, C -O2 one call per batch (1 MB/iteration)", configuration: decodeConfiguration)
    { benchmark in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(gestures.decodeC()) }
    }
    Benchmark("Jacquard mixed stream decode, Swift (1 MB/iteration)", configuration: decodeConfiguration) { benchmark in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(mixed.decode(with: JacquardDecoder())) }
    }
    Benchmark("Jacquard IMU stream decode, Swift (1 MB/iteration)", configuration: decodeConfiguration) { benchmark in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(imu.decode(with: JacquardDecoder())) }
    }
}

/// Gesture notifications back to back, as the C batch decoder takes them.
struct JacquardGestureInput: Sendable {
    let flat: [UInt8]
    let lengths: [UInt32]

    static func make(targetBytes: Int) -> JacquardGestureInput {
        let kinds: [JacquardGesture] = [.doubleTap, .brushIn, .brushOut, .shortCover, .brushUp, .brushDown]
        var flat: [UInt8] = []
        var lengths: [UInt32] = []
        var index = 0
        while flat.count < targetBytes {
            let event = JacquardGestureEvent(
                gesture: kinds[index % kinds.count], componentID: UInt32(index % 3),
                timestampTicks: UInt32(index &* 37))
            for fragment in JacquardMessageEncoder.notifications(for: .gesture(event)).values {
                flat += fragment
                lengths.append(UInt32(fragment.count))
            }
            index += 1
        }
        let input = JacquardGestureInput(flat: flat, lengths: lengths)
        let swift = input.decodeSwift()
        let c = input.decodeC()
        check(swift == c, "the Swift and C Jacquard gesture decoders disagree: \(swift) vs \(c)")
        print(
            "Jacquard gesture input: \(lengths.count) notifications, \(flat.count) bytes, \(swift.values) gestures"
                + " per iteration; Swift and C decoders agree")
        return input
    }

    func decodeSwift() -> DecodeTotals {
        var decoder = JacquardDecoder()
        var totals = DecodeTotals()
        let notify = JacquardGATT.notify
        flat.withUnsafeBytes { data in
            var offset = 0
            for length in lengths {
                let bytes = UnsafeRawBufferPointer(rebasing: data[offset..<(offset + Int(length))])
                offset += Int(length)
                try? decoder.decode(bytes: bytes, from: notify) { value in
                    if case .gesture(let event) = value { totals.add(Double(event.gesture.id)) }
                }
            }
        }
        return totals
    }

    func decodeC() -> DecodeTotals {
        var reassembler = c_jacquard_reassembler()
        var count = 0
        let sum = flat.withUnsafeBufferPointer { data in
            lengths.withUnsafeBufferPointer { lengths in
                c_jacquard_decode_gestures_batch(
                    &reassembler, data.baseAddress, lengths.baseAddress, lengths.count, &count)
            }
        }
        return DecodeTotals(values: count, sum: Double(sum))
    }
}

/// A family simulator's notifications, to decode with that family's decoder.
struct NotificationInput: Sendable {
    let notifications: [RawNotification]

    /// Decodes every notification through the `PacketDecoder` interface; counts values.
    func decode<D: PacketDecoder>(with decoder: D) -> Int {
        var decoder = decoder
        var values = 0
        for notification in notifications {
            try? decoder.decode(notification) { _ in values += 1 }
        }
        return values
    }

    static func collect(targetBytes: Int, label: String, next: () -> RawNotification?) -> NotificationInput {
        var notifications: [RawNotification] = []
        var bytes = 0
        while bytes < targetBytes, let notification = next() {
            notifications.append(notification)
            bytes += notification.bytes.count
        }
        print("\(label) input: \(notifications.count) notifications, \(bytes) bytes per iteration")
        return NotificationInput(notifications: notifications)
    }

    static func jacquard(targetBytes: Int, imuOnly: Bool) -> NotificationInput {
        var simulator = JacquardSimulator(seed: 1)
        let rawData = JacquardGATT.rawData
        return collect(targetBytes: targetBytes, label: imuOnly ? "Jacquard IMU" : "Jacquard mixed") {
            while true {
                let next = simulator.next().rawNotification(startTime: 0)
                if !imuOnly || next.characteristic == rawData { return next }
            }
        }
    }

    static func comodule(targetBytes: Int) -> NotificationInput {
        var simulator = ComoduleSimulator(seed: 1, configuration: .clean)
        return collect(targetBytes: targetBytes, label: "Comodule") { simulator.next().rawNotification(startTime: 0) }
    }
}
