/// A seeded, deterministic Comodule scooter on a ride, encoded in recorder
/// profile v1 with the default property table.
///
/// Every `updateInterval` seconds the module simulates the scooter:
/// - it starts parked and **locked**; after `initialParkTime` the app unlocks
///   it, turns the **lights** on and sets the **assist level** (each a write
///   acknowledgement followed by the new value);
/// - the ride repeats accelerate (to 60…100 % of `maximumSpeed`), cruise
///   (10…60 s), brake and stop (2…10 s, lights sometimes blinking); **speed**
///   is sent every update while unlocked; the app sometimes changes the assist level;
/// - after about `rideDuration` seconds, at a stop, the app **locks** it and
///   it stays parked for `parkDuration`, then the next ride starts;
/// - the **odometer** integrates the speed and is sent whenever its 0.1 km
///   digit changes; **state of charge** drops with distance (and slowly at
///   rest) and is sent when its percent changes and every 30 s; the
///   **battery temperature** follows the load and is sent every 5 s;
/// - rarely (`errorFrameRate` per update) the module sends an error frame
///   for a writable property.
///
/// At offset 0, and after every reconnect, the module sends every property
/// (including the raw **motor serial**, derived from the seed). The link adds
/// jitter, bursts and disconnect gaps (nothing arrives in a gap; the ride
/// goes on). With probability `link.malformedRate` a notification is replaced by a
/// malformed packet (``SimulatedPacket/expected`` is `nil`).
///
/// ```swift
/// var simulator = ComoduleSimulator(seed: 3)
/// let decoder = ComoduleDecoder()
/// let notification = simulator.next()
/// print(try decoder.decode(notification.rawNotification(startTime: 0)) == notification.expected) // true
/// ```
public struct ComoduleSimulator: NotificationSimulator, BLEDeliveringSimulator {
    /// What the simulated scooter does and how its link behaves. Times are in
    /// seconds, speeds in km/h; rates are probabilities in 0…1.
    public struct Configuration: Sendable, Hashable {
        /// Time between simulation updates (and speed notifications).
        public var updateInterval: Double
        /// Top cruising speed (at most 100, the speed property's range).
        public var maximumSpeed: Double
        /// Acceleration, km/h per second.
        public var acceleration: Double
        /// Braking deceleration, km/h per second.
        public var deceleration: Double
        /// Time parked (locked) before the first ride.
        public var initialParkTime: Double
        /// Approximate length of a ride.
        public var rideDuration: Double
        /// Time parked between rides.
        public var parkDuration: Double
        /// State of charge at the start, percent.
        public var initialStateOfCharge: Double
        /// State of charge used per kilometre, percent.
        public var consumptionPerKilometer: Double
        /// Odometer at the start, km.
        public var initialOdometer: Double
        /// Battery temperature at rest, °C.
        public var ambientTemperature: Double
        /// Probability per cruising update that the app changes the assist level.
        public var assistChangeRate: Double
        /// Probability per update of an error frame.
        public var errorFrameRate: Double
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
            updateInterval: Double = 0.2,
            maximumSpeed: Double = 25,
            acceleration: Double = 2,
            deceleration: Double = 4,
            initialParkTime: Double = 3,
            rideDuration: Double = 900,
            parkDuration: Double = 120,
            initialStateOfCharge: Double = 86,
            consumptionPerKilometer: Double = 1.5,
            initialOdometer: Double = 1_234.5,
            ambientTemperature: Double = 18,
            assistChangeRate: Double = 0.002,
            errorFrameRate: Double = 0.0005,
            link: LinkFaults = LinkFaults(
                jitter: 0.02, burstProbability: 0.01, burstHold: 0.3, connectedTime: 300...900, disconnectGap: 2...20,
                malformedRate: 0.01),
            delivery: BLEDelivery? = nil
        ) {
            self.updateInterval = updateInterval
            self.maximumSpeed = maximumSpeed
            self.acceleration = acceleration
            self.deceleration = deceleration
            self.initialParkTime = initialParkTime
            self.rideDuration = rideDuration
            self.parkDuration = parkDuration
            self.initialStateOfCharge = initialStateOfCharge
            self.consumptionPerKilometer = consumptionPerKilometer
            self.initialOdometer = initialOdometer
            self.ambientTemperature = ambientTemperature
            self.assistChangeRate = assistChangeRate
            self.errorFrameRate = errorFrameRate
            self.link = link
            self.delivery = delivery
        }

        /// 5 updates a second, 25 km/h, 15-minute rides with 2-minute stops,
        /// 1 % malformed packets, a disconnect about every ten minutes.
        public static let `default` = Configuration()

        /// The same ride with a perfect link and no malformed packets.
        public static let clean = Configuration(link: .clean)
    }

    /// One simulated notification with the ComoduleFrame it encodes as ground truth
    /// (`nil` when deliberately malformed).
    public typealias SimulatedNotification = SimulatedPacket<ComoduleFrame>

    private enum Phase: Sendable, Hashable {
        case parked(until: Double)
        case stopped(until: Double)
        case accelerating
        case cruising(until: Double)
        case braking
    }

    private enum Update: Sendable, Hashable {
        case value(ComoduleProperty, Int64)
        case written(ComoduleProperty, Int64)
        case error(ComoduleProperty, UInt8)
        case serial
    }

    private static let table = ComodulePropertyTable.default
    private static let speedProperty = table[1]!
    private static let chargeProperty = table[2]!
    private static let odometerProperty = table[3]!
    private static let lightsProperty = table[4]!
    private static let assistProperty = table[5]!
    private static let lockedProperty = table[6]!
    private static let temperatureProperty = table[7]!
    private static let serialProperty = table[16]!

    /// The seed the simulator was created with.
    public let seed: UInt64
    /// What the simulated scooter does.
    public let configuration: Configuration
    /// The motor serial the module reports (8 bytes from the seed).
    public let motorSerial: [UInt8]

    /// Current speed, km/h.
    public private(set) var speed = 0.0
    /// Current odometer, km.
    public private(set) var odometer: Double
    /// Current state of charge, percent.
    public private(set) var stateOfCharge: Double
    /// Current battery temperature, °C.
    public private(set) var batteryTemperature: Double

    private var random: SeededRandom
    private var link: SimulatedLink
    var bleLink: ConnectionEventLink<SimulatedNotification>?
    var bleUpcoming: SimulatedNotification?
    private var queue: [SimulatedNotification] = []
    private var started = false
    private var tick = 0
    private var phase: Phase
    private var target = 0.0
    private var rideEndsAt = 0.0
    private var lights: Int64 = 0
    private var assist: Int64 = 0
    private var locked: Int64 = 1
    private var lastOdometerRaw: Int64
    private var lastChargeRaw: Int64
    private var lastChargeAt = 0.0

    /// Creates a simulator.
    ///
    /// - Parameters:
    ///   - seed: Fixes the motor serial and every generated value.
    ///   - configuration: The scenario; a non-positive or non-finite update
    ///     interval counts as 0.2 s, speeds are kept within 0…100.
    public init(seed: UInt64, configuration: Configuration = .default) {
        self.seed = seed
        self.configuration = configuration
        var random = SeededRandom(seed: seed)
        link = SimulatedLink(seed: random.next(), faults: configuration.link, clock: configuration.delivery?.clock)
        bleLink = .simulated(seed: seed, delivery: configuration.delivery)
        motorSerial = ComoduleEncoder.littleEndian(Int64(bitPattern: random.next()), width: 8)
        odometer = Self.finite(configuration.initialOdometer, 0)
        stateOfCharge = Self.finite(configuration.initialStateOfCharge, 100)
        batteryTemperature = Self.finite(configuration.ambientTemperature, 20)
        phase = .parked(until: Self.finite(configuration.initialParkTime, 0))
        lastOdometerRaw = -1
        lastChargeRaw = -1
        self.random = random
    }

    private static func finite(_ value: Double, _ fallback: Double) -> Double {
        value.isFinite ? value : fallback
    }

    private var interval: Double {
        let value = configuration.updateInterval
        return value.isFinite && value > 0 ? value : 0.2
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

    // MARK: Raw values

    private static func clamp(_ value: Double, _ lower: Int64, _ upper: Int64) -> Int64 {
        guard value.isFinite else { return lower }
        return min(max(Int64(max(min(value, 0x1p62), -0x1p62)), lower), upper)
    }

    private var speedRaw: Int64 { Self.clamp(DiotSimulator.roundDown(speed * 10 + 0.5), 0, 1_000) }
    private var odometerRaw: Int64 { Self.clamp(DiotSimulator.roundDown(odometer * 10), 0, 4_294_967_295) }
    private var chargeRaw: Int64 { Self.clamp(DiotSimulator.roundDown(stateOfCharge + 0.5), 0, 100) }
    private var temperatureRaw: Int64 {
        Self.clamp(DiotSimulator.roundDown((batteryTemperature + 40) * 10 + 0.5), 0, 1_400)
    }

    private var snapshot: [Update] {
        [
            .serial, .value(Self.lockedProperty, locked), .value(Self.lightsProperty, lights),
            .value(Self.assistProperty, assist), .value(Self.chargeProperty, chargeRaw),
            .value(Self.odometerProperty, odometerRaw), .value(Self.temperatureProperty, temperatureRaw),
            .value(Self.speedProperty, speedRaw),
        ]
    }

    // MARK: Simulation

    private mutating func step() {
        guard started else {
            started = true
            lastOdometerRaw = odometerRaw
            lastChargeRaw = chargeRaw
            send(snapshot, at: 0)
            return
        }
        tick += 1
        let dt = interval
        let t = Double(tick) * dt
        var updates: [Update] = []
        let maximum = min(max(Self.finite(configuration.maximumSpeed, 25), 1), 99)
        switch phase {
        case .parked(let until):
            speed = 0
            if t >= until {
                locked = 0
                lights = 2
                assist = 1 + Int64(random.next() % 3)
                updates += [
                    .written(Self.lockedProperty, locked), .written(Self.lightsProperty, lights),
                    .written(Self.assistProperty, assist),
                ]
                rideEndsAt = t + Self.finite(configuration.rideDuration, 900) * (0.8 + 0.4 * random.nextUnit())
                phase = .stopped(until: t + 1)
            }
        case .stopped(let until):
            speed = 0
            if t >= until {
                if t >= rideEndsAt {
                    locked = 1
                    lights = 0
                    updates += [.written(Self.lockedProperty, locked), .value(Self.lightsProperty, lights)]
                    phase = .parked(until: t + max(Self.finite(configuration.parkDuration, 120), 0))
                } else {
                    target = maximum * (0.6 + 0.4 * random.nextUnit())
                    phase = .accelerating
                    if lights != 2 {
                        lights = 2
                        updates.append(.value(Self.lightsProperty, lights))
                    }
                }
            }
        case .accelerating:
            speed = min(speed + max(Self.finite(configuration.acceleration, 2), 0.1) * dt, target)
            if speed >= target { phase = .cruising(until: t + 10 + 50 * random.nextUnit()) }
        case .cruising(let until):
            speed = min(max(target + random.noise(0.4), 0), 100)
            if random.nextUnit() < configuration.assistChangeRate {
                assist = min(max(assist + (random.nextUnit() < 0.5 ? -1 : 1), 0), 5)
                updates.append(.written(Self.assistProperty, assist))
            }
            if t >= until { phase = .braking }
        case .braking:
            speed = max(speed - max(Self.finite(configuration.deceleration, 4), 0.1) * dt, 0)
            if speed == 0 {
                phase = .stopped(until: t + 2 + 8 * random.nextUnit())
                if random.nextUnit() < 0.5 {
                    lights = 1
                    updates.append(.value(Self.lightsProperty, lights))
                }
            }
        }
        if locked == 0 { updates.append(.value(Self.speedProperty, speedRaw)) }

        let distance = speed * dt / 3600
        odometer += distance
        stateOfCharge = max(stateOfCharge - distance * configuration.consumptionPerKilometer - dt * 0.000_2, 0)
        let warm = Self.finite(configuration.ambientTemperature, 20) + speed * 0.5
        batteryTemperature += (warm - batteryTemperature) * min(dt / 120, 1)
        if odometerRaw != lastOdometerRaw {
            lastOdometerRaw = odometerRaw
            updates.append(.value(Self.odometerProperty, odometerRaw))
        }
        if chargeRaw != lastChargeRaw || t - lastChargeAt >= 30 {
            lastChargeRaw = chargeRaw
            lastChargeAt = t
            updates.append(.value(Self.chargeProperty, chargeRaw))
        }
        if tick % max(Int(5 / dt), 1) == 0 { updates.append(.value(Self.temperatureProperty, temperatureRaw)) }
        if random.nextUnit() < configuration.errorFrameRate {
            let writable = [Self.lightsProperty, Self.assistProperty, Self.lockedProperty]
            updates.append(.error(writable[Int(random.next() % 3)], 1 + UInt8(random.next() % 4)))
        }
        send(updates, at: t)
    }

    private mutating func send(_ updates: [Update], at t: Double) {
        var updates = updates
        switch link.state(at: t) {
        case .disconnected: return
        case .reconnected: updates.insert(contentsOf: snapshot, at: 0)
        case .connected: break
        }
        for update in updates {
            let offset = link.deliveryOffset(nominal: t)
            if random.nextUnit() < configuration.link.malformedRate {
                let (characteristic, bytes) = malformed()
                queue.append(
                    SimulatedNotification(offset: offset, characteristic: characteristic, bytes: bytes, expected: nil)
                )
                continue
            }
            let bytes: [UInt8]
            let frame: ComoduleFrame
            switch update {
            case .value(let property, let raw), .written(let property, let raw):
                let kind: ComoduleFrame.Kind
                if case .written = update { kind = .writeAcknowledged } else { kind = .value }
                bytes = ComoduleEncoder.encode(rawInteger: raw, of: property, kind: kind)
                frame = ComoduleFrame(
                    kind: kind,
                    index: property.index,
                    identifier: property.identifier,
                    unit: property.unit,
                    value: property.value(forRawInteger: raw)
                )
            case .error(let property, let code):
                bytes = ComoduleEncoder.frame(kind: .error, index: property.index, signed: false, value: [code])
                frame = ComoduleFrame(
                    kind: .error,
                    index: property.index,
                    identifier: property.identifier,
                    unit: property.unit,
                    errorCode: UInt64(code)
                )
            case .serial:
                let property = Self.serialProperty
                bytes = ComoduleEncoder.frame(kind: .value, index: property.index, signed: false, value: motorSerial)
                frame = ComoduleFrame(
                    kind: .value,
                    index: property.index,
                    identifier: property.identifier,
                    unit: property.unit,
                    value: .raw(motorSerial)
                )
            }
            queue.append(
                SimulatedNotification(
                    offset: offset,
                    characteristic: ComoduleGATT.propertyStream,
                    bytes: bytes,
                    expected: frame
                )
            )
        }
    }

    /// A notification that breaks one profile-v1 rule (for the default table).
    private mutating func malformed() -> (CharacteristicUUID, [UInt8]) {
        func byte(_ range: ClosedRange<UInt8>) -> UInt8 {
            range.lowerBound
                &+ UInt8(truncatingIfNeeded: random.next() % (UInt64(range.upperBound - range.lowerBound) + 1))
        }
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in byte(0...255) } }
        let stream = ComoduleGATT.propertyStream
        switch random.next() % 12 {
        case 0: return (stream, bytes(Int(byte(0...3))))
        case 1: return (stream, [random.nextUnit() < 0.3 ? 0 : byte(4...255), 1, 0, 0x02] + bytes(2))
        case 2: return (stream, [1, 1, 0, 0x02 | 0x20 << (random.next() % 3)] + bytes(2))
        case 3: return (stream, [1, 1, 0, random.nextUnit() < 0.5 ? 0x00 : 0x10] + bytes(Int(byte(0...2))))
        case 4:
            let count = byte(9...15)
            return (stream, [1, 1, 0, count] + bytes(Int(count)))
        case 5: return (stream, [1, 3, 0, 0x04] + bytes(Int(byte(0...3))))
        case 6:
            return (
                stream, ComoduleEncoder.encode(rawInteger: speedRaw, of: Self.speedProperty) + bytes(Int(byte(1...3)))
            )
        case 7:
            let index =
                random.nextUnit() < 0.5 ? UInt16(byte(8...15)) : 17 + UInt16(truncatingIfNeeded: random.next() % 65_519)
            return (stream, ComoduleEncoder.frame(kind: .value, index: index, signed: false, value: [byte(0...255)]))
        case 8:
            let raw = 1_001 + Int64(random.next() % 64_535)
            return (stream, ComoduleEncoder.encode(rawInteger: raw, of: Self.speedProperty))
        case 9:
            if random.nextUnit() < 0.5 {
                return (stream, ComoduleEncoder.encode(rawInteger: Int64(byte(3...255)), of: Self.lightsProperty))
            }
            return (stream, ComoduleEncoder.encode(rawInteger: Int64(byte(2...255)), of: Self.lockedProperty))
        case 10:
            let raw =
                random.nextUnit() < 0.5 ? -1 - Int64(random.next() % 32_768) : 1_401 + Int64(random.next() % 31_367)
            return (stream, ComoduleEncoder.encode(rawInteger: raw, of: Self.temperatureProperty))
        default:
            return (CharacteristicUUID(short: 0x2A19), bytes(Int(byte(0...6))))
        }
    }
}
