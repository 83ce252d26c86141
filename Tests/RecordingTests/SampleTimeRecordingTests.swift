import DeviceClocks
import DeviceRecording
import Devices
import Families
import ROS2
import Recording
import TestSupport
import Testing

/// What the recorder writes as sample time (`docs/time.md`): the `stamp`
/// first in every typed message equals its publish time, never after its log
/// (receive) time; ticked streams follow their ticks, nominal-rate streams
/// their period once the rate is reported, events keep receive time; each
/// clock's model is recorded; the same deliveries give the same times.
@Suite struct SampleTimeRecordingTests {
    static let start: UInt64 = 1_700_000_000_000_000_000

    /// The stamp of a typed message (the first field), in nanoseconds.
    static func stamp(_ message: TypedMessage) -> UInt64? {
        guard message.fields.first?.name == "stamp", case .int(let value) = message.fields.first?.value else {
            return nil
        }
        return UInt64(value)
    }

    /// Records `seconds` of a simulated Jacquard tag (IMU at 100 Hz, three samples a notification).
    static func recordJacquard(seconds: Double, seed: UInt64 = 5) throws -> RecordingReader {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(directory: directory, session: .init(name: "imu", source: "test"), startTime: 0)
        let device = try DeviceStreamRecorder(
            recorder: recorder, decoder: JacquardDecoder(), identifier: "J", name: "J")
        var simulator = JacquardSimulator(seed: seed)
        while true {
            let notification = simulator.next()
            guard notification.offset < .seconds(seconds) else { break }
            try device.record(notification.rawNotification(startTime: start))
        }
        try recorder.close(at: start + UInt64(seconds * 1e9))
        return try RecordingReader(directory: directory)
    }

    @Test func imuSamplesFollowTheirTicksAndNoLongerTie() throws {
        let reader = try Self.recordJacquard(seconds: 20)
        let imu = try reader.typedMessages(topics: ["/jacquard/J/imu"])
        #expect(imu.count > 1_500)
        var previous: (stamp: UInt64, ticks: Int64, log: UInt64)?
        var sharedLogTimes = 0
        for message in imu {
            let stamp = try #require(Self.stamp(message))
            #expect(stamp == message.message.publishTime)
            #expect(stamp <= message.message.logTime)
            guard case .uint(let ticks)? = message.fields.last?.value else {
                Issue.record("no timestamp_ticks")
                return
            }
            if let previous {
                #expect(stamp > previous.stamp)
                if message.message.logTime == previous.log {
                    // One notification: spaced by the ticks (1 kHz), within the drift bound.
                    sharedLogTimes += 1
                    let spacing = Int64(stamp) - Int64(previous.stamp)
                    let tickSpacing = (Int64(ticks) - previous.ticks) * 1_000_000
                    #expect(abs(spacing - tickSpacing) <= tickSpacing / 1000 + 1, "\(spacing) vs \(tickSpacing) ns")
                }
            }
            previous = (stamp, Int64(ticks), message.message.logTime)
        }
        // The receive times tie (three samples a notification); the sample times do not.
        #expect(sharedLogTimes > imu.count / 2)
        // The clock's model is recorded at its first fit, then at most every 5 s (plus new epochs).
        let models = try reader.typedMessages(topics: ["/jacquard/J/clock/imu"])
        #expect(models.count >= 4 && models.count <= 6, "\(models.count)")
        for (earlier, later) in zip(models, models.dropFirst()) {
            #expect(later.message.logTime - earlier.message.logTime >= 5_000_000_000)
        }
        let last = try #require(models.last)
        let fields = Dictionary(uniqueKeysWithValues: last.fields.map { ($0.name, $0.value) })
        #expect(fields["clock"] == .string("imu") && fields["kind"] == .string("ticks"))
        #expect(fields["nominal_rate"] == .double(1000))
        guard case .double(let drift)? = fields["drift_ppm"], case .uint(let fit)? = fields["fit_size"] else {
            Issue.record("no drift or fit size: \(fields)")
            return
        }
        // The simulator's ticks are milliseconds of host time: no drift to find.
        #expect(abs(drift) < 200, "\(drift) ppm")
        #expect(fit > 10)
        // Gestures and touch frames are events: receive time.
        for message in try reader.typedMessages(topics: ["/jacquard/J/gesture", "/jacquard/J/touch"]) {
            #expect(Self.stamp(message) == message.message.logTime)
            #expect(message.message.publishTime == message.message.logTime)
        }
    }

    /// `tlm info`'s drift bound (where it says a clock's nominal rate is likely wrong) is the estimators' default.
    @Test func infosDriftBoundIsTheEstimatorsDefault() throws {
        #expect(DeviceClockEstimator.Configuration.jacquardIMU.maximumDriftPPM == RecordingInfo.Clock.driftBoundPPM)
        #expect(RateDejitterer.Configuration(nominalRate: 50).maximumDriftPPM == RecordingInfo.Clock.driftBoundPPM)
        #expect(
            DeviceClockEstimator.Configuration.jacquardIMU.settledSpanNanoseconds
                == RecordingInfo.Clock.settledSpanNanoseconds)
        #expect(
            RateDejitterer.Configuration(nominalRate: 50).settledSpanNanoseconds
                == RecordingInfo.Clock.settledSpanNanoseconds)
    }

    @Test func theSameDeliveriesGiveTheSameTimes() throws {
        let first = try Self.recordJacquard(seconds: 5, seed: 9)
        let second = try Self.recordJacquard(seconds: 5, seed: 9)
        let topics = ["/jacquard/J/imu", "/jacquard/J/clock/imu"]
        let a = try first.messages(topics: topics).map { [$0.logTime, $0.publishTime] }
        let b = try second.messages(topics: topics).map { [$0.logTime, $0.publishTime] }
        #expect(a == b && a.count > 300)
        #expect(try first.messages(topics: topics).map(\.payload) == second.messages(topics: topics).map(\.payload))
    }

    /// DIoT channel 1 at a 20 ms period, delivered with 0–9 ms of delay:
    /// receive time until the C003 reply gives the rate, then on a line
    /// 20 ms apart.
    @Test func aDiotChannelIsDejitteredOnceItsRateIsReported() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(directory: directory, session: .init(name: "diot", source: "test"), startTime: 0)
        let device = try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(), identifier: "D", name: "D")
        let channel = DiotChannel(1)!
        let data = DiotGATT.characteristic(for: channel)
        var state: UInt64 = 3
        // A fixed pseudo-random delay per notification (an LCG: the same on every platform).
        func nextDelay() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 33) % 9_000_000
        }
        func sample(_ index: Int) throws {
            let measured = Self.start + UInt64(index) * 20_000_000
            let delay = nextDelay()
            let bytes = DiotWire.encode(records: [
                DiotRecord(channel: channel, index: 0, feature: .accX, value: .float(Float(index))),
                DiotRecord(channel: channel, index: 1, feature: .accY, value: .float(0)),
            ])
            try device.record(RawNotification(characteristic: data, bytes: bytes, receiveTime: measured + delay))
        }
        for index in 0..<50 { try sample(index) }
        let rates = DiotWire.encode(channelRates: [(channel, 20)])
        try device.record(
            RawNotification(
                characteristic: DiotGATT.ratesCommand, bytes: rates, receiveTime: Self.start + 50 * 20_000_000 - 1))
        for index in 50..<1_000 { try sample(index) }
        try recorder.close(at: Self.start + 30_000_000_000)

        let reader = try RecordingReader(directory: directory)
        let accX = try reader.typedMessages(topics: ["/diot/D/acc_x"])
        let accY = try reader.typedMessages(topics: ["/diot/D/acc_y"])
        #expect(accX.count == 1_000 && accY.count == 1_000)
        // Before the rate: receive time.
        for message in accX.prefix(50) { #expect(Self.stamp(message) == message.message.logTime) }
        // After: never after receipt, strictly increasing, the records of one notification together.
        var previous: UInt64 = 0
        for (x, y) in zip(accX.dropFirst(50), accY.dropFirst(50)) {
            let stamp = try #require(Self.stamp(x))
            #expect(stamp == x.message.publishTime && stamp <= x.message.logTime && stamp > previous)
            #expect(Self.stamp(y) == stamp)
            previous = stamp
        }
        // Once settled (10 s), 20 ms apart within 0.1 ms, and within the delay's range of the truth.
        let settled = accX.suffix(400).map { Int64(Self.stamp($0)!) }
        for (a, b) in zip(settled, settled.dropFirst()) { #expect(abs(b - a - 20_000_000) < 100_000) }
        for (offset, stamp) in settled.enumerated() {
            let truth = Int64(Self.start) + Int64(600 + offset) * 20_000_000
            #expect(stamp >= truth - 1_000_000 && stamp <= truth + 9_000_000, "\(stamp - truth)")
        }
        let model = try #require(reader.typedMessages(topics: ["/diot/D/clock/channel_1"]).last)
        #expect(model.fields.contains { $0.name == "nominal_rate" && $0.value == .double(50) })
    }

    /// A host clock that steps back (NTP) does not stop recording: the
    /// estimator starts afresh and the times stay at or before receipt.
    @Test func aHostClockStepBackStartsTheFitAfresh() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(directory: directory, session: .init(name: "step", source: "test"), startTime: 0)
        let device = try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(), identifier: "D", name: "D")
        let channel = DiotChannel(2)!
        try device.record(
            RawNotification(
                characteristic: DiotGATT.ratesCommand, bytes: DiotWire.encode(channelRates: [(channel, 10)]),
                receiveTime: Self.start))
        let times: [UInt64] = [10, 20, 30, 40, 5, 15, 25].map { Self.start + $0 * 10_000_000 }
        for (index, time) in times.enumerated() {
            let bytes = DiotWire.encode(records: [
                DiotRecord(channel: channel, index: 0, feature: .gyroX, value: .float(Float(index)))
            ])
            try device.record(
                RawNotification(characteristic: DiotGATT.characteristic(for: channel), bytes: bytes, receiveTime: time))
        }
        try recorder.close(at: Self.start + 1_000_000_000)
        let gyro = try RecordingReader(directory: directory).typedMessages(topics: ["/diot/D/gyro_x"])
        #expect(gyro.count == times.count)
        for message in gyro { #expect(Self.stamp(message)! <= message.message.logTime) }
    }

    /// A DIoT channel on receive time until its rate is reported, then
    /// dejittered: the first dejittered sample, delivered at the same instant
    /// as the last one on receive time, is not placed before it (readers
    /// stop on a stream whose sample times go back).
    @Test func sampleTimesNeverGoBackWhenARateArrivesMidStream() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(directory: directory, session: .init(name: "diot", source: "test"), startTime: 0)
        let device = try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(), identifier: "D", name: "D")
        let channel = DiotChannel(3)!
        func sample(_ index: Int, at time: UInt64) throws {
            let bytes = DiotWire.encode(records: [
                DiotRecord(channel: channel, index: 0, feature: .heartRate, value: .int(UInt32(60 + index)))
            ])
            try device.record(
                RawNotification(characteristic: DiotGATT.characteristic(for: channel), bytes: bytes, receiveTime: time))
        }
        let instant = Self.start + 1_000_000_000
        try sample(0, at: instant - 20_000_000)
        try sample(1, at: instant)
        // One connection event: the rates reply and the next sample at the same instant.
        try device.record(
            RawNotification(
                characteristic: DiotGATT.ratesCommand, bytes: DiotWire.encode(channelRates: [(channel, 20)]),
                receiveTime: instant))
        try sample(2, at: instant)
        for index in 3..<20 { try sample(index, at: instant + UInt64(index - 2) * 20_000_000) }
        try recorder.close(at: Self.start + 5_000_000_000)
        let stamps = try RecordingReader(directory: directory).typedMessages(topics: ["/diot/D/heart_rate"])
            .map { Self.stamp($0)! }
        #expect(stamps.count == 20)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 <= $1 }, "\(stamps)")
        #expect(stamps[2] == instant)
    }
}
