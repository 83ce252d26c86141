// The clock-accuracy scenarios: a Jacquard-like IMU (100 Hz, three samples per
// notification, 1 kHz 32-bit ticks) and a DIoT-like 50 Hz channel (one sample
// per notification, no device time), each at connection intervals of 7.5, 30
// and 100 ms, drift 0 and ±200 ppm, 1 % retransmissions, delivered by
// `ConnectionEventDelivery` and stamped by `DeviceClockEstimator` /
// `RateDejitterer` (online) and by `OfflineClockFit` (the whole session at
// once); and two devices in one session. Over the first five minutes each
// delivery is also timed by `OfflineClockFit` over every delivery received up
// to the end of its second (the bound on what an online estimate could know
// then: the whole past, a second of future). Writes one CSV per stream
// (truth, receive, online, offline and that causal estimate, empty after five
// minutes, nanoseconds from the start) and index.json into the directory
// given (default .build/clock-accuracy), for Scripts/clock_accuracy.py.
//
//     swift run -c release ClockAccuracy DIR [SECONDS]
import DeviceClocks
import Devices
import Foundation

let arguments = CommandLine.arguments
let directory = URL(fileURLWithPath: arguments.count > 1 ? arguments[1] : ".build/clock-accuracy")
let seconds = arguments.count > 2 ? Double(arguments[2]) ?? 1200 : 1200
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)

struct Stream {
    var name: String
    var kind: String
    var rate: Double
    var drift: Double
    var file: String
}

/// Delivers one device's samples and stamps them; writes its CSV.
func run(name: String, ticked: Bool, interval: Double, drift: Double, seed: UInt64) throws -> Stream {
    let rate = ticked ? 100.0 : 50.0
    var link = ConnectionEventDelivery(
        seed: seed,
        configuration: .init(
            sampleRate: rate, samplesPerNotification: ticked ? 3 : 1,
            clock: DeviceClock(tickRate: 1000, tickBits: 32, driftPPM: drift, initialTicks: seed &* 7919 % 10_000_000),
            connectionInterval: interval, retransmissionRate: 0.01))
    let start = link.configuration.startNanoseconds
    var clock = try DeviceClockEstimator(configuration: .jacquardIMU)
    var dejitterer = try RateDejitterer(configuration: .init(nominalRate: rate))
    // The whole-session fit of the same deliveries.
    var offline =
        ticked
        ? try OfflineClockFit(configuration: .jacquardIMU)
        : try OfflineClockFit(configuration: .init(nominalRate: rate))
    var rows: [(truth: Int64, receive: Int64, online: Int64)] = []
    // The first five minutes' deliveries (ticks, or a count and no ticks), for the causal fits.
    let causalSpan: Int64 = 300_000_000_000
    var early: [(ticks: [UInt64], count: Int, receivedAt: Int64)] = []
    for notification in link.notifications(forSeconds: seconds) {
        if notification.receivedAt - start < causalSpan {
            early.append(
                (ticked ? notification.samples.map(\.ticks) : [], notification.samples.count, notification.receivedAt))
        }
        let times: [Int64]
        if ticked {
            let ticks = notification.samples.map(\.ticks)
            times = try clock.sampleTimes(ticks: ticks, receivedAt: notification.receivedAt)
            try offline.add(ticks: ticks, receivedAt: notification.receivedAt)
        } else {
            times = try dejitterer.sampleTimes(count: notification.samples.count, receivedAt: notification.receivedAt)
            try offline.add(count: notification.samples.count, receivedAt: notification.receivedAt)
        }
        for (sample, time) in zip(notification.samples, times) {
            rows.append((sample.measuredAt - start, sample.receivedAt - start, time - start))
        }
    }
    let offlineTimes = offline.sampleTimes()
    // Each second's deliveries timed by a fit of all deliveries up to that second's end.
    var causal: [Int64] = []
    var fitted = 0
    var delivered = 0
    for end in stride(from: Int64(1_000_000_000), through: causalSpan, by: 1_000_000_000) {
        while fitted < early.count, early[fitted].receivedAt - start < end { fitted += 1 }
        guard fitted > delivered else { continue }
        var fit =
            ticked
            ? try OfflineClockFit(configuration: .jacquardIMU)
            : try OfflineClockFit(configuration: .init(nominalRate: rate))
        for delivery in early[..<fitted] {
            if ticked {
                try fit.add(ticks: delivery.ticks, receivedAt: delivery.receivedAt)
            } else {
                try fit.add(count: delivery.count, receivedAt: delivery.receivedAt)
            }
        }
        causal.append(contentsOf: fit.sampleTimes().dropFirst(causal.count))
        delivered = fitted
    }
    var csv = "truth_ns,receive_ns,estimate_ns,offline_ns,causal_ns\n"
    for (position, (row, time)) in zip(rows, offlineTimes).enumerated() {
        let bound = position < causal.count ? "\(causal[position] - start)" : ""
        csv += "\(row.truth),\(row.receive),\(row.online),\(time - start),\(bound)\n"
    }
    let file = name + ".csv"
    try csv.write(to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
    return Stream(name: name, kind: ticked ? "IMU ticks 100 Hz" : "nominal 50 Hz", rate: rate, drift: drift, file: file)
}

func describe(_ stream: Stream) -> [String: Any] {
    ["name": stream.name, "kind": stream.kind, "rate": stream.rate, "drift_ppm": stream.drift, "file": stream.file]
}

var scenarios: [[String: Any]] = []
var seed: UInt64 = 1
for ticked in [true, false] {
    for interval in [0.0075, 0.030, 0.100] {
        for drift in [0.0, 200, -200] {
            let name = "\(ticked ? "imu" : "diot")_\(Int(interval * 10_000))_\(Int(drift))"
            let stream = try run(name: name, ticked: ticked, interval: interval, drift: drift, seed: seed)
            seed += 1
            scenarios.append(["name": name, "interval_ms": interval * 1000, "streams": [describe(stream)]])
            print("wrote \(name)")
        }
    }
}
// Two devices in one session (30 ms interval, drifts +200 and -200 ppm).
var pairs: [[String]] = []
for ticked in [true, false] {
    let kind = ticked ? "imu" : "diot"
    let a = try run(name: "\(kind)_pair_a", ticked: ticked, interval: 0.030, drift: 200, seed: 101)
    let b = try run(name: "\(kind)_pair_b", ticked: ticked, interval: 0.030, drift: -200, seed: 202)
    scenarios.append(["name": "\(kind)_pair", "interval_ms": 30.0, "streams": [describe(a), describe(b)]])
    pairs.append([a.name, b.name])
}
let index: [String: Any] = ["seconds": seconds, "scenarios": scenarios, "pairs": pairs]
try JSONSerialization.data(withJSONObject: index, options: [.prettyPrinted, .sortedKeys])
    .write(to: directory.appendingPathComponent("index.json"))
print("wrote \(directory.path)/index.json")
