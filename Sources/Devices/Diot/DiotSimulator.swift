/// A seeded, deterministic DIoT device that emits real wire-format
/// notifications on D001…D009.
///
/// Each configured channel notifies at its own rate; ``next()`` returns the
/// notifications of all channels merged in time order (ties go to the lower
/// channel number). Signals are smooth and realistic (acceleration around
/// gravity, heart rate drifting between 60 and 90, skin temperature near
/// 36.5 °C, …) with a little noise. The same seed gives the same bytes on
/// every platform: the simulator uses its own generator (SplitMix64) and its
/// own sine, never the system's.
///
/// ```swift
/// var simulator = DiotSimulator(seed: 42)
/// let decoder = DiotDecoder()
/// for _ in 0..<3 {
///     let notification = simulator.next()
///     let packet = try decoder.decode(notification.bytes, from: notification.characteristic)
///     print(notification.offset, packet.channel, Array(packet.records) == notification.records) // … true
/// }
/// print(simulator.deviceName) // DIoT-xxxx, fixed by the seed
/// ```
public struct DiotSimulator: Sendable {
    /// What the simulated device sends: which features on which channel, how often.
    public struct Configuration: Sendable, Hashable {
        /// One data channel's binding: the features packed, in order, in each
        /// of its notifications, and its notification rate.
        public struct ChannelBinding: Sendable, Hashable {
            /// The data channel (characteristic D00N).
            public var channel: DiotChannel
            /// The features of each notification, in record order. An empty
            /// list makes the channel send the channel-empty packet `00`.
            public var features: [DiotFeature]
            /// Notifications per second; must be positive and finite.
            public var rate: Double

            /// Creates a binding.
            ///
            /// - Parameters:
            ///   - channel: The data channel.
            ///   - features: The features of each notification, in record order.
            ///   - rate: Notifications per second, positive and finite.
            public init(channel: DiotChannel, features: [DiotFeature], rate: Double) {
                self.channel = channel
                self.features = features
                self.rate = rate
            }
        }

        /// The channel bindings. Several bindings may share a channel; ties
        /// in time then go to the earlier binding.
        public var bindings: [ChannelBinding]
        /// Unix seconds at offset zero, the base for date features such as `currentDate`.
        public var startDate: UInt32

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - bindings: At least one channel binding.
        ///   - startDate: Unix seconds at offset zero (default 1 700 000 000,
        ///     2023-11-14T22:13:20Z).
        public init(bindings: [ChannelBinding], startDate: UInt32 = 1_700_000_000) {
            self.bindings = bindings
            self.startDate = startDate
        }

        /// A wearable: IMU acceleration on ch1 and angular rate on ch2 at 50 Hz,
        /// heart rate and oxygen on ch3 at 1 Hz, temperature and humidity on ch4
        /// at 0.5 Hz, step counter and activity level on ch5 at 1 Hz, and the
        /// device clock on ch6 at 0.2 Hz.
        public static let `default` = Configuration(bindings: [
            ChannelBinding(channel: DiotChannel(unchecked: 1), features: [.accX, .accY, .accZ], rate: 50),
            ChannelBinding(channel: DiotChannel(unchecked: 2), features: [.gyroX, .gyroY, .gyroZ], rate: 50),
            ChannelBinding(channel: DiotChannel(unchecked: 3), features: [.heartRate, .oxygen], rate: 1),
            ChannelBinding(channel: DiotChannel(unchecked: 4), features: [.temperature, .humidity], rate: 0.5),
            ChannelBinding(
                channel: DiotChannel(unchecked: 5),
                features: [.activityStepCounter, .activityLevel],
                rate: 1
            ),
            ChannelBinding(channel: DiotChannel(unchecked: 6), features: [.currentDate], rate: 0.2),
        ])
    }

    /// One simulated notification, with the ground truth it encodes.
    public struct SimulatedNotification: Sendable, Hashable {
        /// Time since the start of the simulation: notification `k` of a channel
        /// at rate `r` is at `k / r` seconds, rounded to the nanosecond.
        public var offset: Duration
        /// The channel that notifies.
        public var channel: DiotChannel
        /// The data characteristic that notifies (D00N for channel N).
        public var characteristic: CharacteristicUUID
        /// The notification's value in DIoT wire format.
        public var bytes: [UInt8]
        /// The records ``bytes`` encodes, in order (empty for the `00` packet).
        public var records: [DiotRecord]

        /// Creates a simulated notification.
        ///
        /// - Parameters:
        ///   - offset: Time since the start of the simulation.
        ///   - channel: The channel that notifies.
        ///   - bytes: The value in wire format.
        ///   - records: The records the value encodes.
        public init(offset: Duration, channel: DiotChannel, bytes: [UInt8], records: [DiotRecord]) {
            self.offset = offset
            self.channel = channel
            self.characteristic = channel.characteristic
            self.bytes = bytes
            self.records = records
        }

        /// The notification as received, stamped `startTime + offset`.
        ///
        /// - Parameter startTime: Host time of the simulation start, nanoseconds
        ///   since the Unix epoch.
        /// - Returns: A raw notification with this characteristic and bytes.
        public func rawNotification(startTime: UInt64) -> RawNotification {
            let (seconds, attoseconds) = offset.components
            let nanoseconds = UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
            return RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: startTime &+ nanoseconds)
        }
    }

    /// The seed the simulator was created with.
    public let seed: UInt64
    /// What the simulated device sends.
    public let configuration: Configuration
    /// The 16-byte device UUID, derived from the seed (a version-4 UUID layout).
    public let deviceUUID: [UInt8]

    /// Notifications emitted so far, per binding.
    private var emitted: [Int]
    /// Per-binding, per-feature phase in `0..<1`, from the seed.
    private let phases: [[Double]]
    /// Noise source, from the seed.
    private var random: DiotRandom

    /// Creates a simulator.
    ///
    /// - Parameters:
    ///   - seed: Fixes the device identity and every generated value.
    ///   - configuration: The channels to simulate; it needs at least one
    ///     binding, each with a positive, finite rate (checked with `precondition`).
    public init(seed: UInt64, configuration: Configuration = .default) {
        precondition(!configuration.bindings.isEmpty, "DiotSimulator needs at least one channel binding")
        precondition(
            configuration.bindings.allSatisfy { $0.rate > 0 && $0.rate.isFinite },
            "DiotSimulator rates must be positive and finite"
        )
        self.seed = seed
        self.configuration = configuration
        var identity = DiotRandom(seed: seed)
        var uuid: [UInt8] = []
        for word in [identity.next(), identity.next()] {
            for shift in stride(from: 0, to: 64, by: 8) {
                uuid.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        uuid[6] = uuid[6] & 0x0F | 0x40
        uuid[8] = uuid[8] & 0x3F | 0x80
        deviceUUID = uuid
        phases = configuration.bindings.map { binding in binding.features.map { _ in identity.nextUnit() } }
        random = DiotRandom(seed: identity.next())
        emitted = Array(repeating: 0, count: configuration.bindings.count)
    }

    /// The device UUID as 32 lower-case hex digits: the device's identifier in topics.
    public var deviceIdentifier: String {
        advertisementValue.deviceIdentifier
    }

    /// The advertised name, `"DIoT-"` and the last two UUID bytes in hex, for example `"DIoT-9F3A"`.
    public var deviceName: String {
        advertisementValue.deviceName
    }

    /// The manufacturer data the simulated device advertises.
    ///
    /// - Returns: 18 bytes: `F7 04` and ``deviceUUID``; parse them with
    ///   ``DiotAdvertisement/parse(manufacturerData:)``.
    public func advertisement() -> [UInt8] {
        advertisementValue.manufacturerData
    }

    private var advertisementValue: DiotAdvertisement {
        // deviceUUID is built with 16 bytes in init.
        DiotAdvertisement(deviceUUID: deviceUUID)!
    }

    /// The time of the next notification of binding `index`, in nanoseconds.
    private func nextOffset(ofBinding index: Int) -> Int64 {
        let nanoseconds = Self.roundDown(Double(emitted[index]) * 1e9 / configuration.bindings[index].rate + 0.5)
        return nanoseconds < 0x1p62 ? Int64(nanoseconds) : 1 << 62
    }

    /// Produces the next notification in time order across all channels.
    ///
    /// Ties go to the lower channel number, then to the earlier binding.
    ///
    /// - Returns: The notification, its offset and the records it encodes.
    public mutating func next() -> SimulatedNotification {
        var chosen = 0
        var chosenOffset = nextOffset(ofBinding: 0)
        for index in configuration.bindings.indices.dropFirst() {
            let offset = nextOffset(ofBinding: index)
            if offset < chosenOffset
                || (offset == chosenOffset
                    && configuration.bindings[index].channel < configuration.bindings[chosen].channel)
            {
                chosen = index
                chosenOffset = offset
            }
        }
        emitted[chosen] += 1
        let binding = configuration.bindings[chosen]
        let seconds = Double(chosenOffset) / 1e9
        var records: [DiotRecord] = []
        records.reserveCapacity(binding.features.count)
        for (index, feature) in binding.features.enumerated() {
            let raw = value(of: feature, at: seconds, phase: phases[chosen][index])
            records.append(DiotRecord(channel: binding.channel, index: index, feature: feature, raw: raw))
        }
        return SimulatedNotification(
            offset: .nanoseconds(chosenOffset),
            channel: binding.channel,
            bytes: DiotWire.encode(records: records),
            records: records
        )
    }

    /// The raw value bits of `feature` at `t` seconds.
    private mutating func value(of feature: DiotFeature, at t: Double, phase: Double) -> UInt32 {
        func float(_ value: Double) -> UInt32 { Float(value).bitPattern }
        func int(_ value: Double) -> UInt32 { UInt32(min(max(Self.roundDown(value + 0.5), 0), 4_294_967_295)) }
        func wave(_ hertz: Double, _ extraPhase: Double = 0) -> Double {
            Self.sine(cycles: hertz * t + phase + extraPhase)
        }
        let date = Double(configuration.startDate) + t
        switch feature {
        case .signalRedLed: return float(52_000 + 1_500 * wave(1.2) + random.noise(40))
        case .signalGreenLed: return float(48_000 + 2_000 * wave(1.2, 0.1) + random.noise(40))
        case .signalIRLed: return float(61_000 + 1_800 * wave(1.2, 0.2) + random.noise(40))
        case .heartRate: return int(75 + 11 * wave(1 / 240) + 3 * wave(1 / 37) + random.noise(1))
        case .oxygen: return float(min(97.5 + 1.2 * wave(1 / 180) + random.noise(0.2), 100))
        case .respiratory: return float(15 + 2 * wave(1 / 60) + random.noise(0.3))
        case .temperature: return float(36.5 + 0.2 * wave(1 / 900) + random.noise(0.02))
        case .humidity: return float(45 + 5 * wave(1 / 600) + random.noise(0.3))
        case .accX: return float(0.15 * wave(0.9) + random.noise(0.02))
        case .accY: return float(0.10 * wave(0.9, 0.25) + random.noise(0.02))
        case .accZ: return float(1.0 + 0.05 * wave(1.8) + random.noise(0.02))
        case .gyroX: return float(30 * wave(0.5) + random.noise(1))
        case .gyroY: return float(20 * wave(0.5, 0.25) + random.noise(1))
        case .gyroZ: return float(10 * wave(0.3) + random.noise(1))
        case .awakeLastFallAsleepDate: return int(Double(configuration.startDate) - 8 * 3600)
        case .awakeLastAwakeDate: return int(Double(configuration.startDate) - 1800)
        case .activityStepCounter: return int(Self.roundDown(t * 1.6 + phase * 1000))
        case .noiseLevel: return float(40 + 5 * wave(1 / 20) + random.noise(1))
        case .activityLevel: return int(1.5 + 1.5 * wave(1 / 300))
        case .activityLevelDate: return int(Self.roundDown(date / 60) * 60)
        case .activityDistanceTraveled: return float(t * 1.2)
        case .activityCaloriesBurn: return float(t * 0.02)
        case .longitude: return float(13.405 + 0.001 * wave(1 / 600))
        case .latitude: return float(52.52 + 0.001 * wave(1 / 600, 0.25))
        case .altitude: return float(34 + 2 * wave(1 / 300) + random.noise(0.2))
        case .hrAlertTriggerTop: return 120
        case .hrAlertTriggerBottom: return 40
        case .oxygenAlertTriggerBottom: return 90
        case .temperatureAlertTriggerTop: return float(38)
        case .temperatureAlertTriggerBottom: return float(35)
        case .humidityAlertTriggerTop: return float(70)
        case .humidityAlertTriggerBottom: return float(20)
        case .personAge: return int(25 + 40 * phase)
        case .personHeight: return float(165 + 25 * phase)
        case .personWeight: return float(60 + 30 * phase)
        case .personGender: return phase < 0.5 ? 1 : 0
        case .currentDate: return int(Self.roundDown(date))
        case .empty: return 0
        default:
            switch feature.valueType {
            case .bool: return 0  // alerts stay off
            case .some: return int(0)
            case nil: return UInt32(truncatingIfNeeded: random.next())  // unknown codes: random bits
            }
        }
    }

    /// `floor(x)` without the C library: `Double.rounded` calls libm's
    /// `floor`/`round` in unoptimised builds, which executables that import
    /// neither Foundation nor Glibc fail to link.
    static func roundDown(_ x: Double) -> Double {
        guard x.magnitude < 0x1p52 else { return x }  // already an integer (or NaN/infinity)
        let truncated = Double(Int64(x))
        return truncated > x ? truncated - 1 : truncated
    }

    /// `sin(2π·cycles)` from basic IEEE operations only, so results are
    /// bit-identical on every platform (unlike the C library's `sin`).
    static func sine(cycles: Double) -> Double {
        let turn = cycles - roundDown(cycles)  // 0..<1, exact
        let quarter: Double
        let sign: Double
        switch turn {
        case ..<0.25: (quarter, sign) = (turn, 1)
        case ..<0.5: (quarter, sign) = (0.5 - turn, 1)
        case ..<0.75: (quarter, sign) = (turn - 0.5, -1)
        default: (quarter, sign) = (1 - turn, -1)
        }
        let x = quarter * 6.283_185_307_179_586  // 0...π/2
        let x2 = x * x
        // Taylor series to x^17 in nested form; error below 1e-13 on 0...π/2.
        var sum = 1.0
        for k in stride(from: 8.0, through: 1.0, by: -1.0) {
            sum = 1 - x2 / ((2 * k) * (2 * k + 1)) * sum
        }
        return sign * x * sum
    }
}
