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
/// Scenario controls (all off in ``Configuration/default``): the link adds
/// jitter, bursts and disconnect gaps (nothing is notified in a gap; the
/// signals go on), a fraction of data notifications is replaced by malformed
/// packets (``SimulatedNotification/isMalformed``), and with
/// ``Configuration/connectReads`` the session starts, and every reconnect
/// restarts, with the reads and command replies a central makes on connect:
/// device information, chip id, battery level, the C001 feature settings, the
/// C002 channel map and the C003 rates describing the configuration, and a
/// debug log line.
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
public struct DiotSimulator: NotificationSimulator, BLEDeliveringSimulator {
    /// What the simulated device sends (which features on which channel, how
    /// often) and how its link behaves. Times are in seconds; rates are
    /// probabilities in 0…1. Negative or non-finite times and rates count as 0.
    ///
    /// DIoT packets carry no sequence number, so there is no sequence-gap
    /// control: a lost notification (a disconnect gap) is simply absent.
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
        /// The link's faults: jitter, bursts, disconnects (nothing is
        /// notified in a gap) and malformed data packets (on the same channel:
        /// empty, a single non-zero byte, or a length that is not a multiple of 5).
        public var link: LinkFaults
        /// Whether the session starts, and each reconnect restarts, with the
        /// connect-time reads: device information, chip id, battery level and
        /// the C001, C002 and C003 replies describing ``bindings``, then a
        /// debug log line.
        public var connectReads: Bool
        /// Deliver as Bluetooth LE does, or `nil` to stamp each notification
        /// at its nominal time (with ``link``'s jitter and bursts). With a
        /// delivery, channels notify at their nominal rates on the device's
        /// clock; ``link``'s jitter, bursts and disconnects give way to the
        /// delivery's connection events, retransmissions and supervision
        /// timeouts; its malformed rate still applies; the session starts,
        /// and every reconnect restarts, with the connect-time reads (all of
        /// them with ``connectReads``, else the C003 rates reply alone), so a
        /// recorder learns each channel's nominal rate; and every data
        /// notification says when it was measured
        /// (``SimulatedNotification/measuredAt``).
        public var delivery: BLEDelivery?

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - bindings: At least one channel binding.
        ///   - startDate: Unix seconds at offset zero (default 1 700 000 000,
        ///     2023-11-14T22:13:20Z).
        ///   - link: The link's faults (default none).
        ///   - connectReads: Whether to send the connect-time reads and replies (default `false`).
        ///   - delivery: Deliver as BLE does, or `nil` (default).
        public init(
            bindings: [ChannelBinding],
            startDate: UInt32 = 1_700_000_000,
            link: LinkFaults = .clean,
            connectReads: Bool = false,
            delivery: BLEDelivery? = nil
        ) {
            self.bindings = bindings
            self.startDate = startDate
            self.link = link
            self.connectReads = connectReads
            self.delivery = delivery
        }

        /// A wearable: IMU acceleration on ch1 and angular rate on ch2 at 50 Hz,
        /// heart rate and oxygen on ch3 at 1 Hz, temperature and humidity on ch4
        /// at 0.5 Hz, step counter and activity level on ch5 at 1 Hz, and the
        /// device clock on ch6 at 0.2 Hz. A perfect link, no malformed
        /// packets, no connect-time reads.
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

        /// The same as ``default``: a well-behaved device (named like the other
        /// families' fault-free presets).
        public static let clean = Configuration.default

        /// The ``default`` wearable with connect-time reads (device
        /// information, chip id, battery, command replies, a debug line) and
        /// otherwise no faults.
        public static let withConnectReads = Configuration(bindings: Configuration.default.bindings, connectReads: true)

        /// Every fault at once on the ``default`` wearable, with connect-time
        /// reads: 5 ms jitter, bursts (0.5 % of deliveries hold 100 ms), a
        /// disconnect about every minute for 1…5 s, and 1 % malformed data packets.
        public static let stress = Configuration(
            bindings: Configuration.default.bindings,
            link: LinkFaults(
                jitter: 0.005, burstProbability: 0.005, burstHold: 0.1, connectedTime: 30...90, disconnectGap: 1...5,
                malformedRate: 0.01),
            connectReads: true
        )

        /// A DIoT IMU: acceleration (x, y, z) on ch1 and angular rate on ch2,
        /// each at `rate` notifications per second, on a perfect link.
        ///
        /// ```swift
        /// var simulator = DiotSimulator(seed: 1, configuration: .imu(rate: 200))
        /// print(simulator.next().records.map(\.feature)) // [accX, accY, accZ]
        /// ```
        ///
        /// - Parameter rate: Notifications per second per channel (default
        ///   100); positive and finite.
        /// - Returns: The configuration.
        public static func imu(rate: Double = 100) -> Configuration {
            Configuration(bindings: [
                ChannelBinding(channel: DiotChannel(unchecked: 1), features: [.accX, .accY, .accZ], rate: rate),
                ChannelBinding(channel: DiotChannel(unchecked: 2), features: [.gyroX, .gyroY, .gyroZ], rate: rate),
            ])
        }

        /// A DIoT IMU at 100 Hz: ``imu(rate:)`` with the default rate.
        public static let imu100Hz = Configuration.imu(rate: 100)
    }

    /// One simulated notification, with the ground truth it encodes.
    public struct SimulatedNotification: SimulatedNotificationProtocol, RetimableNotification {
        /// Time since the start of the simulation (non-decreasing). On a
        /// perfect link, notification `k` of a channel at rate `r` is at
        /// `k / r` seconds, rounded to the nanosecond; jitter and bursts
        /// delay it. With a delivery, the instant the host receives it.
        public var offset: Duration
        /// The data channel that notifies. For a notification on another
        /// characteristic (``isDataChannel`` is `false`: a connect-time read
        /// or command reply) it is channel 1, a placeholder.
        public var channel: DiotChannel
        /// The characteristic that notifies (D00N for channel N on a data channel).
        public var characteristic: CharacteristicUUID
        /// The notification's value in DIoT wire format.
        public var bytes: [UInt8]
        /// The records ``bytes`` encodes, in order (empty for the `00` packet,
        /// a malformed packet and other characteristics).
        public var records: [DiotRecord]
        /// Whether ``bytes`` is deliberately malformed: the decoder must throw.
        public var isMalformed: Bool
        /// The events of a notification that is not on a data channel.
        private var serviceEvents: [DiotEvent]
        /// With a delivery, when the device measured the records: the truth,
        /// time since the start on the host's clock (notification `k` of a
        /// channel at rate `r` at device time `k / r`), never after
        /// ``offset``; `nil` without a delivery and for other characteristics.
        /// Never part of the bytes.
        public var measuredAt: Duration?

        /// Creates a well-formed data-channel notification.
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
            self.isMalformed = false
            self.serviceEvents = []
            self.measuredAt = nil
        }

        /// Creates a notification on any characteristic from the events it
        /// encodes.
        ///
        /// - Parameters:
        ///   - offset: Time since the start of the simulation.
        ///   - characteristic: The characteristic that notifies.
        ///   - bytes: The value.
        ///   - expected: The events the decoder emits for it, or `nil` when
        ///     the value is deliberately malformed.
        public init(offset: Duration, characteristic: CharacteristicUUID, bytes: [UInt8], expected: [DiotEvent]?) {
            self.offset = offset
            self.characteristic = characteristic
            let dataChannel = DiotGATT.dataChannel(for: characteristic)
            self.channel = dataChannel ?? DiotChannel(unchecked: 1)
            self.bytes = bytes
            self.isMalformed = expected == nil
            let events = expected ?? []
            self.records = events.compactMap { event in
                if case .record(let record) = event { record } else { nil }
            }
            self.serviceEvents = dataChannel == nil ? events : []
            self.measuredAt = nil
        }

        /// Whether the characteristic is a data channel (D001…D009).
        public var isDataChannel: Bool {
            DiotGATT.dataChannel(for: characteristic) != nil
        }

        /// The events ``DiotDecoder/decodeEvents(_:from:emit:)`` emits for
        /// ``bytes``, or `nil` for a malformed packet.
        public var expected: [DiotEvent]? {
            if isMalformed { return nil }
            guard isDataChannel else { return serviceEvents }
            return records.isEmpty ? [.channelEmpty(channel)] : records.map(DiotEvent.record)
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
    private var random: SeededRandom
    /// The link: disconnect gaps, jitter and bursts.
    private var link: SimulatedLink
    /// The malformed-packet rate, sanitised.
    private let malformedRate: Double
    /// Source of malformed-packet decisions and bytes.
    private var faults: SeededRandom
    /// Notifications generated but not yet returned (connect-time reads, and
    /// the data notification that follows a reconnect's reads).
    private var pending: [SimulatedNotification] = []
    /// Whether the session-start reads have been queued.
    private var started = false
    /// Battery level at offset zero, percent.
    private let initialBattery: Double
    /// Phase for the person settings of the C001 reply.
    private let personPhase: Double
    /// The delivery's clock, if any.
    private let clock: DeviceClock?
    var bleLink: ConnectionEventLink<SimulatedNotification>?
    var bleUpcoming: SimulatedNotification?

    /// The chip identifier the device reports on FFD1 (8 bytes from the seed).
    public let chipID: [UInt8]
    /// The device information strings the device reports (service 180A),
    /// derived from the seed.
    public let deviceInformation: [DiotDeviceInformationField: String]

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
        var identity = SeededRandom(seed: seed)
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
        random = SeededRandom(seed: identity.next())
        emitted = Array(repeating: 0, count: configuration.bindings.count)
        // Everything below draws after the generators above, so `.default` bytes never change.
        link = SimulatedLink(seed: identity.next(), faults: configuration.delivery == nil ? configuration.link : .clean)
        clock = configuration.delivery?.clock
        bleLink = .simulated(seed: seed, delivery: configuration.delivery)
        let rate = configuration.link.malformedRate
        malformedRate = rate.isFinite && rate > 0 ? min(rate, 1) : 0
        faults = SeededRandom(seed: identity.next())
        var device = SeededRandom(seed: identity.next())
        let chip = device.next()
        chipID = (0..<8).map { UInt8(truncatingIfNeeded: chip >> (8 * UInt64($0))) }
        initialBattery = 60 + Double(device.next() % 41)
        personPhase = device.nextUnit()
        let version = device.next()
        deviceInformation = [
            .manufacturerName: "Daatrics Ltd",
            .modelNumber: "DIoT wearable (simulated)",
            .hardwareRevision: "rev \(Character(UnicodeScalar(UInt8(65 + version % 4))))",
            .firmwareRevision: "2.\((version >> 8) % 10).\((version >> 16) % 20)",
            .softwareRevision: "sim-1",
        ]
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

    /// The nominal time of the next notification of binding `index` (device
    /// time, with a delivery), in nanoseconds.
    private func nextOffset(ofBinding index: Int) -> Int64 {
        let nanoseconds = Self.roundDown(Double(emitted[index]) * 1e9 / configuration.bindings[index].rate + 0.5)
        return nanoseconds < 0x1p62 ? Int64(nanoseconds) : 1 << 62
    }

    /// Produces the next notification in offset order.
    ///
    /// Data notifications are generated in nominal time order across all
    /// channels; ties go to the lower channel number, then to the earlier
    /// binding. Connect-time reads (when configured) come before the data of
    /// the session start and of each reconnect.
    ///
    /// With a delivery, notifications come in receive order.
    ///
    /// - Returns: The notification, its offset and its ground truth.
    public mutating func next() -> SimulatedNotification {
        bleLink == nil ? produce() : deliverNext()
    }

    /// The next notification as the device sends it, its offset the instant it is due.
    mutating func produce() -> SimulatedNotification {
        while true {
            if !pending.isEmpty { return pending.removeFirst() }
            if !started {
                started = true
                if configuration.connectReads || configuration.delivery != nil {
                    queueConnectReads(atNanoseconds: 0)
                    continue
                }
            }
            guard let notification = nextDataNotification() else { continue }
            if pending.isEmpty { return notification }
            pending.append(notification)
        }
    }

    /// The next data notification, or `nil` when it falls in a disconnect gap.
    private mutating func nextDataNotification() -> SimulatedNotification? {
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
        if link.disconnects {
            switch link.state(at: seconds) {
            case .disconnected: return nil
            case .reconnected: if configuration.connectReads { queueConnectReads(atNanoseconds: chosenOffset) }
            case .connected: break
            }
        }
        var records: [DiotRecord] = []
        records.reserveCapacity(binding.features.count)
        for (index, feature) in binding.features.enumerated() {
            let raw = value(of: feature, at: seconds, phase: phases[chosen][index])
            records.append(DiotRecord(channel: binding.channel, index: index, feature: feature, raw: raw))
        }
        let offset = deliveryOffset(nominalNanoseconds: chosenOffset)
        let bytes = DiotWire.encode(records: records)
        var notification: SimulatedNotification
        if malformedRate > 0, faults.nextUnit() < malformedRate {
            notification = SimulatedNotification(
                offset: offset,
                characteristic: binding.channel.characteristic,
                bytes: malformed(from: bytes),
                expected: nil
            )
        } else {
            notification = SimulatedNotification(
                offset: offset, channel: binding.channel, bytes: bytes, records: records)
        }
        if bleLink != nil { notification.measuredAt = offset }
        return notification
    }

    /// The connect-time reads again when the link is back.
    mutating func reconnectNotifications(at seconds: Double) -> [SimulatedNotification] {
        let nanoseconds = Int64(seconds * 1e9)
        pending.removeAll()  // produced while the link was down: lost
        // Reads are made on the host's side: their nominal time is host time.
        queueConnectReads(atNanoseconds: nanoseconds, hostTime: true)
        defer { pending.removeAll() }
        return pending
    }

    /// When a notification generated at a nominal time reaches the host (with
    /// a delivery: when it is produced, on the host's clock).
    private mutating func deliveryOffset(nominalNanoseconds: Int64) -> Duration {
        if let clock {
            return .nanoseconds(Int64(clock.hostSeconds(atDeviceSeconds: Double(nominalNanoseconds) / 1e9) * 1e9))
        }
        // Without jitter or bursts offsets are the exact nominal times.
        guard link.delaysDeliveries else { return .nanoseconds(nominalNanoseconds) }
        return link.deliveryOffset(nominal: Double(nominalNanoseconds) / 1e9)
    }

    /// The features the C001 reply reports: alert thresholds and the wearer's data.
    private static let settingFeatures: [DiotFeature] = [
        .hrAlertTriggerTop, .hrAlertTriggerBottom, .oxygenAlertTriggerBottom, .temperatureAlertTriggerTop,
        .temperatureAlertTriggerBottom, .personAge, .personHeight, .personWeight, .personGender,
    ]

    /// The battery level at `seconds`: the seeded start, minus 1 % per 10 minutes.
    private func batteryPercent(at seconds: Double) -> UInt8 {
        UInt8(min(max(Self.roundDown(initialBattery - seconds / 600 + 0.5), 0), 100))
    }

    /// Queues the connect-time reads, in the order a central makes them:
    /// device information, chip id, battery, then the C001, C002 and C003
    /// fetch replies, then a debug log line. With a delivery and without
    /// ``Configuration/connectReads``, the C003 reply alone.
    private mutating func queueConnectReads(atNanoseconds nominal: Int64, hostTime: Bool = false) {
        let seconds = Double(nominal) / 1e9
        var reads: [(CharacteristicUUID, [UInt8], [DiotEvent])] = []
        for field in DiotDeviceInformationField.allCases {
            let value = deviceInformation[field] ?? ""
            reads.append((field.characteristic, Array(value.utf8), [.deviceInformation(field: field, value: value)]))
        }
        reads.append((DiotGATT.chipID, chipID, [.chipID(chipID)]))
        let battery = batteryPercent(at: seconds)
        reads.append((DiotGATT.batteryLevel, [battery], [.battery(percent: battery)]))
        var settings: [DiotFeatureSetting] = []
        for (index, feature) in Self.settingFeatures.enumerated() {
            let raw = value(of: feature, at: seconds, phase: personPhase)
            settings.append(DiotFeatureSetting(index: index, feature: feature, raw: raw))
        }
        reads.append(
            (
                DiotGATT.featuresCommand,
                DiotWire.encode(featureSettings: settings),
                settings.map(DiotEvent.featureSetting)
            ))
        var bindings: [(channel: DiotChannel, feature: DiotFeature)] = []
        var rates: [(channel: DiotChannel, milliseconds: UInt32)] = []
        for binding in configuration.bindings {
            let features = binding.features.isEmpty ? [DiotFeature.empty] : binding.features
            bindings += features.map { (binding.channel, $0) }
            if !rates.contains(where: { $0.channel == binding.channel }) {
                let milliseconds = min(max(Self.roundDown(1_000 / binding.rate + 0.5), 0), 4_294_967_295)
                rates.append((binding.channel, UInt32(milliseconds)))
            }
        }
        reads.append(
            (
                DiotGATT.channelsCommand,
                DiotWire.encode(channelBindings: bindings),
                bindings.map { DiotEvent.channelBinding(channel: $0.channel, feature: $0.feature) }
            ))
        reads.append(
            (
                DiotGATT.ratesCommand,
                DiotWire.encode(channelRates: rates),
                rates.map { DiotEvent.channelRate(channel: $0.channel, milliseconds: $0.milliseconds) }
            ))
        let line = "[\(nominal / 1_000_000) ms] ble: connected, \(rates.count) channels, battery \(battery)%"
        reads.append((DiotGATT.debugLog, Array(line.utf8) + [0x0D, 0x0A], [.debugLog(line)]))
        if configuration.delivery != nil, !configuration.connectReads {
            reads.removeAll { $0.0 != DiotGATT.ratesCommand }
        }
        for (characteristic, bytes, events) in reads {
            pending.append(
                SimulatedNotification(
                    offset: hostTime ? .nanoseconds(nominal) : deliveryOffset(nominalNanoseconds: nominal),
                    characteristic: characteristic,
                    bytes: bytes,
                    expected: events
                )
            )
        }
    }

    /// A data-channel value that breaks the length rule: empty, one non-zero
    /// byte, or 2…16 bytes that are not a multiple of 5 (starting with the
    /// well-formed value's bytes).
    private mutating func malformed(from bytes: [UInt8]) -> [UInt8] {
        switch faults.next() % 4 {
        case 0: return []
        case 1: return [1 &+ UInt8(truncatingIfNeeded: faults.next() % 255)]
        default:
            var length = 2 + Int(faults.next() % 13)
            if length % 5 == 0 { length += 1 }
            var value = Array(bytes.prefix(length))
            while value.count < length { value.append(UInt8(truncatingIfNeeded: faults.next())) }
            return value
        }
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
