import Benchmark
import BenchmarkSupport
@_spi(Benchmarks) import DeviceRecording
import Devices
import Families
import Foundation
import ROS2
import Recording

/// What sample times cost the record path (issue 34: the estimator at most
/// 5 %): the same notifications recorded through `DeviceStreamRecorder`
/// three ways, back to back in rotating order — with the family's timing
/// (Jacquard IMU ticks through `DeviceClockEstimator`, DIoT channel records
/// through `RateDejitterer` after a C003 rates reply), with every value on
/// receive time (the same decoder and values, their timing hidden), and
/// with preset sample times (a `DeviceClockSurvey`'s times of the same
/// notifications handed out in order: the same path and as many distinct
/// stamps, no estimator run). Each iteration reports estimated ÷ receive
/// time (what sample times cost in all) and estimated ÷ preset (what the
/// estimators cost).
func sampleTimeCostBenchmarks() {
    let start: UInt64 = 1_700_000_000_000_000_000
    let channel = DiotChannel(1)!
    // DIoT: the rates reply, then 300k notifications of channel 1 (acc x, y, z) at 20 ms, 0–9 ms late.
    var diot: [RawNotification] = [
        RawNotification(
            characteristic: DiotGATT.ratesCommand,
            bytes: DiotWire.encode(channelRates: [(channel, 20)]), receiveTime: start)
    ]
    var state: UInt64 = 1
    for index in 0..<300_000 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let bytes = DiotWire.encode(
            records: [DiotFeature.accX, .accY, .accZ].enumerated().map { offset, feature in
                DiotRecord(channel: channel, index: offset, feature: feature, raw: UInt32(index))
            })
        diot.append(
            RawNotification(
                characteristic: channel.characteristic, bytes: bytes,
                receiveTime: start + 1_000_000 + UInt64(index) * 20_000_000 + (state >> 33) % 9_000_000))
    }
    // Jacquard: 100k notifications of the simulated tag (three IMU samples each, and gestures and touch).
    var simulator = JacquardSimulator(seed: 4)
    let jacquard = (0..<100_000).map { _ in simulator.next().rawNotification(startTime: start) }

    let ratio = BenchmarkMetric.custom(
        "sample times ÷ receive time, throughput (%)", polarity: .prefersLarger, useScalingFactor: false)
    let cpuRatio = BenchmarkMetric.custom(
        "sample times ÷ receive time, CPU (%)", polarity: .prefersLarger, useScalingFactor: false)
    // The thread that records (and estimates): the others compress and index.
    let threadRatio = BenchmarkMetric.custom(
        "sample times ÷ receive time, recording thread CPU (%)", polarity: .prefersLarger, useScalingFactor: false)
    let estimatorRatio = BenchmarkMetric.custom(
        "estimated ÷ preset sample times, throughput (%)", polarity: .prefersLarger, useScalingFactor: false)
    let estimatorCPURatio = BenchmarkMetric.custom(
        "estimated ÷ preset sample times, CPU (%)", polarity: .prefersLarger, useScalingFactor: false)
    let estimatorThreadRatio = BenchmarkMetric.custom(
        "estimated ÷ preset sample times, recording thread CPU (%)", polarity: .prefersLarger,
        useScalingFactor: false)
    func pair<D: PacketDecoder, R: PacketDecoder>(
        _ name: String, _ notifications: [RawNotification], decoder: D, receiveTimed: R
    ) where D.Value: RecordableValue, R.Value: RecordableValue {
        let alternation = Alternation()
        let survey = DeviceClockSurvey(decoder: decoder)
        for notification in notifications { survey.add(notification) }
        let preset = survey.fittedTimes()
        Benchmark(
            "Record \(notifications.count / 1000)k \(name) notifications, sample times ÷ receive time, paired",
            configuration: .init(
                metrics: [ratio, cpuRatio, threadRatio, estimatorRatio, estimatorCPURatio, estimatorThreadRatio],
                maxDuration: .seconds(90), maxIterations: 15)
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                var timed = Cost.zero
                var untimed = Cost.zero
                var presetTimed = Cost.zero
                for side in alternation.rotation(of: 3) {
                    switch side {
                    case 0:
                        timed = record(notifications) {
                            try DeviceStreamRecorder(recorder: $0, decoder: decoder, identifier: "B", name: "B")
                        }
                    case 1:
                        untimed = record(notifications) {
                            try DeviceStreamRecorder(recorder: $0, decoder: receiveTimed, identifier: "B", name: "B")
                        }
                    default:
                        presetTimed = record(notifications) {
                            try DeviceStreamRecorder(
                                recorder: $0, decoder: decoder, identifier: "B", name: "B", presetSampleTimes: preset)
                        }
                    }
                }
                let all = timed.percent(of: untimed)
                let estimator = timed.percent(of: presetTimed)
                benchmark.measurement(ratio, all.wall)
                benchmark.measurement(cpuRatio, all.cpu)
                benchmark.measurement(threadRatio, all.thread)
                benchmark.measurement(estimatorRatio, estimator.wall)
                benchmark.measurement(estimatorCPURatio, estimator.cpu)
                benchmark.measurement(estimatorThreadRatio, estimator.thread)
                print(
                    "\(name): estimated \(timed), receive time \(untimed), preset \(presetTimed): "
                        + "÷ receive time \(all.wall) % wall, \(all.cpu) % CPU, \(all.thread) % recording thread CPU; "
                        + "÷ preset \(estimator.wall) % wall, \(estimator.cpu) % CPU, "
                        + "\(estimator.thread) % recording thread CPU")
            }
        }
    }
    pair("DIoT", diot, decoder: DiotDecoder(), receiveTimed: ReceiveTimedDiot())
    pair("Jacquard", jacquard, decoder: JacquardDecoder(), receiveTimed: ReceiveTimedJacquard())
}

/// The wall time, the process's CPU time (every thread: a loaded machine
/// stretches the first, hardly the second) and the recording thread's CPU
/// time of one recording.
private struct Cost: CustomStringConvertible {
    static let zero = Cost(wall: .zero, cpu: .zero, threadCPU: .zero)
    var wall: Duration
    var cpu: Duration
    var threadCPU: Duration

    var description: String {
        "\(Int(wall / .milliseconds(1))) ms (CPU \(Int(cpu / .milliseconds(1))) ms)"
    }

    /// The throughput of this recording as a percentage of `baseline`'s (its time ÷ this one's).
    func percent(of baseline: Cost) -> (wall: Int, cpu: Int, thread: Int) {
        (
            Int((100 * (baseline.wall / wall)).rounded()), Int((100 * (baseline.cpu / cpu)).rounded()),
            Int((100 * (baseline.threadCPU / threadCPU)).rounded())
        )
    }
}

/// The CPU time used by this process's threads so far.
private func processCPUTime() -> Duration {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
}

/// The CPU time used by the calling thread so far.
private func threadCPUTime() -> Duration {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
}

/// Records `notifications` into a new recording (durability `none`)
/// through the device recorder `device` makes, and returns the time taken;
/// the recording is removed.
private func record<D: PacketDecoder>(
    _ notifications: [RawNotification], device makeDevice: (Recorder) throws -> DeviceStreamRecorder<D>
) -> Cost {
    let directory = NSTemporaryDirectory() + "tlm-bench-stamp-\(UUID().uuidString.prefix(8))"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let cpuBefore = processCPUTime()
    let threadBefore = threadCPUTime()
    let wall = ContinuousClock().measure {
        var configuration = RecorderConfiguration()
        configuration.durability = .none
        let recorder = try! Recorder(
            directory: directory, configuration: configuration, session: .init(name: "stamp", source: "bench"))
        let device = try! makeDevice(recorder)
        for notification in notifications { try! device.record(notification) }
        try! recorder.close()
    }
    return Cost(wall: wall, cpu: processCPUTime() - cpuBefore, threadCPU: threadCPUTime() - threadBefore)
}

/// A decoder whose values are those of `Base` with their timing hidden:
/// every value on receive time (the record path without the estimators).
/// Conformed to per family, with concrete types: a generic wrapper's values
/// reached their base through runtime metadata lookups on every call (some
/// 3 % of the untimed recording's instructions), a cost no real decoder has.
private protocol ReceiveTimed: PacketDecoder where Value: ReceiveTimedValue, Value.Base == Base.Value {
    associatedtype Base: PacketDecoder
    var base: Base { get set }
}

extension ReceiveTimed {
    static var family: DeviceFamily { Base.family }

    mutating func decode(_ notification: RawNotification, emit: (Value) -> Void) throws(Base.Failure) {
        try base.decode(notification) { emit(Value(base: $0)) }
    }
}

/// A value of `Base` on receive time (its default `sampleTiming`).
private protocol ReceiveTimedValue: RecordableValue, Encodable {
    associatedtype Base: RecordableValue, Encodable
    var base: Base { get }
    init(base: Base)
}

extension ReceiveTimedValue {
    var streamKey: Int { base.streamKey }
    var streamSpec: RecordedStream { base.streamSpec }
    func encode(into cdr: inout CDRWriter) -> Double? { base.encode(into: &cdr) }
    func encode(to encoder: any Encoder) throws { try base.encode(to: encoder) }
}

private struct ReceiveTimedDiot: ReceiveTimed {
    struct Value: ReceiveTimedValue { let base: DiotEvent }
    var base = DiotDecoder()
}

private struct ReceiveTimedJacquard: ReceiveTimed {
    struct Value: ReceiveTimedValue { let base: JacquardValue }
    var base = JacquardDecoder()
}
