/// A seeded, deterministic Fjorden grip in use: button, dial and zoom events,
/// a slowly draining battery and its device information, encoded in recorder
/// profile v1.
///
/// At offset 0 the grip sends its device information strings and battery
/// level. Then, every `meanActionInterval × U(0.5, 1.5)` seconds, the user
/// does one thing, sent as a short sequence of events:
/// - shutter: half-down, then usually down and released, or released from half-down;
/// - dial: 1…4 turns CW or CCW, each with a repeat count (detents) 1…6;
/// - dial or fn press / long press;
/// - zoom: hold left/right then neutral, or a left/right push then neutral;
/// - rarely (`unknownEventRate`) an event code ≥ 14.
///
/// The battery starts at `initialBattery` and drops by `batteryDrainPerHour`;
/// its level is sent every `batteryInterval` seconds. The link adds jitter,
/// bursts and disconnect gaps (nothing arrives in a gap; on reconnect the grip
/// re-sends device information and battery). With probability `link.malformedRate`
/// a notification is replaced by a malformed packet (``SimulatedPacket/expected``
/// is `nil`), sometimes on a characteristic the decoder does not know.
///
/// ```swift
/// var simulator = FjordenSimulator(seed: 1)
/// let notification = simulator.next()
/// print(notification.characteristic, notification.expected as Any)
/// ```
public struct FjordenSimulator: NotificationSimulator, BLEDeliveringSimulator {
    /// What the simulated grip does and how its link behaves. Times are in
    /// seconds; rates are probabilities in 0…1.
    public struct Configuration: Sendable, Hashable {
        /// Mean time between user actions.
        public var meanActionInterval: Double
        /// Probability that an action is an undefined event code (≥ 14).
        public var unknownEventRate: Double
        /// Battery level at the start, percent.
        public var initialBattery: Double
        /// Battery drain in percent per hour.
        public var batteryDrainPerHour: Double
        /// Time between battery level notifications.
        public var batteryInterval: Double
        /// The device information the grip reports (the serial number, when
        /// absent, is derived from the seed).
        public var deviceInformation: [FjordenDeviceInformation]
        /// The link's faults: jitter, bursts, disconnects and malformed packets.
        public var link: LinkFaults
        /// Deliver as Bluetooth LE does, or `nil` to stamp each notification
        /// when it is due (with ``link``'s faults). With a delivery, the
        /// device schedules on its clock; ``link``'s jitter, bursts and
        /// disconnects give way to the delivery's connection events,
        /// retransmissions and supervision timeouts (after which the device
        /// re-sends nothing); its malformed rate still applies; and every
        /// notification says when it was sent (``SimulatedPacket/measuredAt``).
        public var delivery: BLEDelivery?

        /// Creates a configuration; every parameter has a default.
        ///
        /// - Parameters: See the properties of the same names.
        public init(
            meanActionInterval: Double = 2,
            unknownEventRate: Double = 0.01,
            initialBattery: Double = 64,
            batteryDrainPerHour: Double = 12,
            batteryInterval: Double = 60,
            deviceInformation: [FjordenDeviceInformation] = [
                FjordenDeviceInformation(field: .manufacturerName, value: "Fjorden"),
                FjordenDeviceInformation(field: .modelNumber, value: "Fjorden Grip"),
                FjordenDeviceInformation(field: .hardwareRevision, value: "C"),
                FjordenDeviceInformation(field: .firmwareRevision, value: "1.4.0"),
            ],
            link: LinkFaults = LinkFaults(
                jitter: 0.01, burstProbability: 0.02, burstHold: 0.25, connectedTime: 450...1_350,
                disconnectGap: 1...10,
                malformedRate: 0.01),
            delivery: BLEDelivery? = nil
        ) {
            self.meanActionInterval = meanActionInterval
            self.unknownEventRate = unknownEventRate
            self.initialBattery = initialBattery
            self.batteryDrainPerHour = batteryDrainPerHour
            self.batteryInterval = batteryInterval
            self.deviceInformation = deviceInformation
            self.link = link
            self.delivery = delivery
        }

        /// An action every 2 s on average, battery 64 % draining 12 %/h,
        /// 1 % malformed packets, a disconnect about every 15 minutes.
        public static let `default` = Configuration()

        /// The same grip with a perfect link and no malformed packets.
        public static let clean = Configuration(link: .clean)
    }

    /// One simulated notification with the FjordenValue it encodes as ground truth
    /// (`nil` when deliberately malformed).
    public typealias SimulatedNotification = SimulatedPacket<FjordenValue>

    private struct Scheduled: Sendable, Hashable {
        var time: Double
        var value: FjordenValue
        var explicitRepeatCount: Bool
    }

    /// The seed the simulator was created with.
    public let seed: UInt64
    /// What the simulated grip does.
    public let configuration: Configuration
    /// The device information strings the grip reports, in order.
    public let deviceInformation: [FjordenDeviceInformation]

    private var random: SeededRandom
    private var link: SimulatedLink
    var bleLink: ConnectionEventLink<SimulatedNotification>?
    var bleUpcoming: SimulatedNotification?
    private var queue: [SimulatedNotification] = []
    private var scheduled: [Scheduled] = []
    private var started = false
    private var nextActionAt: Double
    private var nextBatteryAt: Double

    /// Creates a simulator.
    ///
    /// - Parameters:
    ///   - seed: Fixes the serial number and every generated value.
    ///   - configuration: The scenario; non-positive intervals count as 1 s.
    public init(seed: UInt64, configuration: Configuration = .default) {
        self.seed = seed
        self.configuration = configuration
        var random = SeededRandom(seed: seed)
        link = SimulatedLink(seed: random.next(), faults: configuration.link, clock: configuration.delivery?.clock)
        bleLink = .simulated(seed: seed, delivery: configuration.delivery)
        var information = configuration.deviceInformation
        if !information.contains(where: { $0.field == .serialNumber }) {
            let serial = String(random.next() >> 32, radix: 16, uppercase: true)
            information.append(FjordenDeviceInformation(field: .serialNumber, value: "FG-" + serial))
        }
        deviceInformation = information
        nextActionAt = Self.positive(configuration.meanActionInterval) * (0.5 + random.nextUnit())
        nextBatteryAt = Self.positive(configuration.batteryInterval)
        self.random = random
    }

    private static func positive(_ seconds: Double) -> Double {
        seconds.isFinite && seconds > 0 ? seconds : 1
    }

    /// The battery level at `t` seconds, percent.
    private func battery(at t: Double) -> UInt8 {
        let level = configuration.initialBattery - configuration.batteryDrainPerHour * t / 3600
        guard level.isFinite, level > 0 else { return 0 }
        return level >= 100 ? 100 : UInt8(level)
    }

    /// Produces the next notification in offset order.
    ///
    /// - Returns: The notification, its offset and its ground truth.
    public mutating func next() -> SimulatedNotification {
        bleLink == nil ? produce() : deliverNext()
    }

    /// The next notification as the device sends it, its offset the instant it is due.
    mutating func produce() -> SimulatedNotification {
        while queue.isEmpty { step() }
        var notification = queue.removeFirst()
        if bleLink != nil { notification.measuredAt = notification.offset }
        return notification
    }

    private mutating func step() {
        guard started else {
            started = true
            send(snapshot(at: 0), at: 0)
            return
        }
        if scheduled.isEmpty { scheduleAction() }
        let event = scheduled[0]
        if nextBatteryAt <= event.time {
            let t = nextBatteryAt
            nextBatteryAt += Self.positive(configuration.batteryInterval)
            send([(.batteryLevel(FjordenBatteryLevel(percent: battery(at: t))), false)], at: t)
        } else {
            scheduled.removeFirst()
            send([(event.value, event.explicitRepeatCount)], at: event.time)
        }
    }

    private func snapshot(at t: Double) -> [(FjordenValue, Bool)] {
        deviceInformation.map { (FjordenValue.deviceInformation($0), false) }
            + [(.batteryLevel(FjordenBatteryLevel(percent: battery(at: t))), false)]
    }

    /// Schedules the events of the next user action.
    private mutating func scheduleAction() {
        var t = nextActionAt
        func add(_ code: FjordenEventCode, count: UInt8 = 1, after delay: ClosedRange<Double> = 0...0) {
            t += SimulatedLink.uniform(delay, &random)
            let explicit = count == 1 && random.nextUnit() < 0.5
            scheduled.append(
                Scheduled(
                    time: t,
                    value: .gripEvent(FjordenGripEvent(event: code, repeatCount: count)),
                    explicitRepeatCount: explicit
                )
            )
        }
        let draw = random.nextUnit()
        if draw < configuration.unknownEventRate {
            add(.unknown(14 &+ UInt8(truncatingIfNeeded: random.next() % 242)))
        } else {
            switch random.next() % 10 {
            case 0, 1, 2:
                add(.shutterButtonHalfDown)
                if random.nextUnit() < 0.7 {
                    add(.shutterButtonDown, after: 0.2...1.0)
                    add(.shutterButtonReleased, after: 0.05...0.3)
                } else {
                    add(.shutterButtonReleased, after: 0.3...1.5)
                }
            case 3, 4, 5:
                let clockwise = random.nextUnit() < 0.5
                for turn in 0...Int(random.next() % 4) {
                    let direction = (random.nextUnit() < 0.9) == clockwise
                    let count = 1 &+ UInt8(truncatingIfNeeded: random.next() % 6)
                    add(direction ? .dialButtonCW : .dialButtonCCW, count: count, after: turn == 0 ? 0...0 : 0.05...0.2)
                }
            case 6:
                add(random.nextUnit() < 0.7 ? .dialButtonPress : .dialButtonLongPress)
            case 7:
                add(random.nextUnit() < 0.7 ? .fnButtonPress : .fnButtonLongPress)
            default:
                let left = random.nextUnit() < 0.5
                if random.nextUnit() < 0.5 {
                    add(left ? .zoomLeverHoldLeft : .zoomLeverHoldRight)
                    add(.zoomLeverNeutral, after: 0.5...2.0)
                } else {
                    add(left ? .zoomLeverLeft : .zoomLeverRight)
                    add(.zoomLeverNeutral, after: 0.1...0.3)
                }
            }
        }
        nextActionAt = t + Self.positive(configuration.meanActionInterval) * (0.5 + random.nextUnit())
    }

    private mutating func send(_ values: [(FjordenValue, Bool)], at t: Double) {
        var values = values
        switch link.state(at: t) {
        case .disconnected: return
        case .reconnected: values.insert(contentsOf: snapshot(at: t), at: 0)
        case .connected: break
        }
        for (value, explicit) in values {
            let offset = link.deliveryOffset(nominal: t)
            if random.nextUnit() < configuration.link.malformedRate {
                let (characteristic, bytes) = malformed()
                queue.append(
                    SimulatedNotification(offset: offset, characteristic: characteristic, bytes: bytes, expected: nil)
                )
            } else {
                let (characteristic, bytes) = FjordenEncoder.encode(value, explicitRepeatCount: explicit)
                queue.append(
                    SimulatedNotification(offset: offset, characteristic: characteristic, bytes: bytes, expected: value)
                )
            }
        }
    }

    /// A notification that breaks one profile-v1 rule.
    private mutating func malformed() -> (CharacteristicUUID, [UInt8]) {
        func byte(_ range: ClosedRange<UInt8>) -> UInt8 {
            range.lowerBound
                &+ UInt8(truncatingIfNeeded: random.next() % (UInt64(range.upperBound - range.lowerBound) + 1))
        }
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in byte(0...255) } }
        switch random.next() % 8 {
        case 0: return (FjordenGATT.event, [])
        case 1: return (FjordenGATT.event, bytes(Int(byte(3...8))))
        case 2: return (FjordenGATT.event, [byte(0...13), 0])
        case 3: return (FjordenGATT.batteryLevel, bytes(random.nextUnit() < 0.3 ? 0 : Int(byte(2...4))))
        case 4: return (FjordenGATT.batteryLevel, [byte(101...255)])
        case 5:
            let field = FjordenDeviceInformation.Field.allCases[Int(random.next() % 6)]
            let invalid: [[UInt8]] = [[0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF5, 0x80, 0x80, 0x80]]
            return (field.characteristic, Array("Grip".utf8) + invalid[Int(random.next() % 5)])
        case 6: return (CharacteristicUUID(short: 0x2A37), bytes(2))
        default: return (CharacteristicUUID(high: random.next(), low: random.next()), bytes(Int(byte(0...4))))
        }
    }
}
