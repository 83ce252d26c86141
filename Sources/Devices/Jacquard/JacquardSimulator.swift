/// A seeded, deterministic Jacquard tag that emits real wire-format
/// notifications: gestures, touch frames, the IMU stream, battery status,
/// and on request disconnects, bursts, sequence gaps and malformed packets.
///
/// ``next()`` returns the notifications in time order, each with the ground
/// truth it encodes: the values a correct decoder emits for it, or the
/// ``JacquardDecodeError/Code`` it must throw. Fed to one
/// ``JacquardDecoder`` in order, every notification decodes to exactly its
/// ground truth. The same seed and configuration give the same bytes on
/// every platform (the simulator uses its own generator and no libm).
///
/// With the handshake on, the stream starts with a Hello response and a
/// two-fragment DeviceInfo response on the response characteristic.
///
/// ```swift
/// var simulator = JacquardSimulator(seed: 7)
/// var decoder = JacquardDecoder()
/// for _ in 0..<5 {
///     let notification = simulator.next()
///     var values: [JacquardValue] = []
///     try decoder.decode(notification.bytes, from: notification.characteristic) { values.append($0) }
///     print(notification.offset, values == notification.values) // … true
/// }
/// ```
public struct JacquardSimulator: NotificationSimulator, BLEDeliveringSimulator {
    /// What the simulated tag sends, and which faults to inject.
    public struct Configuration: Sendable, Hashable {
        /// Seconds between gestures, drawn uniformly; `nil` sends none.
        public var gestureInterval: ClosedRange<Double>?
        /// The gestures to draw from, uniformly; must not be empty when gestures are on.
        public var gestures: [JacquardGesture]
        /// Seconds between touches, drawn uniformly; `nil` sends no touch stream.
        public var touchPause: ClosedRange<Double>?
        /// How long one touch lasts, in seconds, drawn uniformly.
        public var touchDuration: ClosedRange<Double>
        /// Touch frames per second while touching, drawn per touch.
        public var touchRate: ClosedRange<Double>
        /// IMU samples per second; 0 sends no IMU stream.
        public var imuRate: Double
        /// Samples per raw-data notification, 1…3 (3 × 16 + 2 = 50 bytes).
        public var imuSamplesPerNotification: Int
        /// Seconds between battery-status notifications; `nil` sends none.
        public var batteryInterval: Double?
        /// Seconds between Error notifications, drawn uniformly; `nil` sends none.
        public var errorInterval: ClosedRange<Double>?
        /// The link's faults: jitter on each scheduled notification; bursts
        /// (notifications due within ``LinkFaults/burstHold`` are delivered
        /// together at its end); disconnects, each a Disconnect notification
        /// (`reconnect: true`), then nothing for the gap, then an Attached
        /// notification; and malformed packets, per notify or raw-data message
        /// (bad fragments, a truncated protobuf message or a partial IMU
        /// sample) whose ground truth is the error it causes. A gap that is
        /// one value draws nothing.
        public var link: LinkFaults
        /// The chance, per touch frame, that the touch sequence jumps by 2…9 instead of 1.
        public var sequenceGapProbability: Double
        /// The gear's component id, on gestures, touch frames and Attached.
        public var componentID: UInt32
        /// Whether the stream starts with Hello and DeviceInfo responses.
        public var sendsHandshake: Bool
        /// Deliver as Bluetooth LE does, or `nil` to stamp each notification
        /// when it is due (with ``link``'s jitter and bursts). With a
        /// delivery, the tag schedules on its clock, whose ticks (wrapping at
        /// its width) are the `timestamp_ticks` of IMU samples, gestures and
        /// touch frames; ``link``'s jitter, bursts and disconnects give way
        /// to the delivery's connection events, retransmissions and
        /// supervision timeouts (after which the tag re-sends nothing); its
        /// malformed rate still applies; and every notification says when
        /// its values were measured (``SimulatedNotification/measuredAt``).
        public var delivery: BLEDelivery?

        /// Creates a configuration; every parameter has a realistic default
        /// and every fault is off.
        ///
        /// - Parameters:
        ///   - gestureInterval: Seconds between gestures, or `nil`.
        ///   - gestures: The gestures to draw from.
        ///   - touchPause: Seconds between touches, or `nil`.
        ///   - touchDuration: Seconds per touch.
        ///   - touchRate: Frames per second while touching.
        ///   - imuRate: IMU samples per second, or 0.
        ///   - imuSamplesPerNotification: 1…3 samples per notification.
        ///   - batteryInterval: Seconds between battery reports, or `nil`.
        ///   - errorInterval: Seconds between Error notifications, or `nil`.
        ///   - link: The link's faults (2 ms jitter, no others).
        ///   - sequenceGapProbability: Chance per touch frame of a sequence jump.
        ///   - componentID: The gear's component id.
        ///   - sendsHandshake: Whether to start with Hello and DeviceInfo.
        ///   - delivery: Deliver as BLE does, or `nil`.
        public init(
            gestureInterval: ClosedRange<Double>? = 2...8,
            gestures: [JacquardGesture] = [.doubleTap, .brushIn, .brushOut, .shortCover, .brushUp, .brushDown],
            touchPause: ClosedRange<Double>? = 2...6,
            touchDuration: ClosedRange<Double> = 0.3...1.5,
            touchRate: ClosedRange<Double> = 20...50,
            imuRate: Double = 100,
            imuSamplesPerNotification: Int = 3,
            batteryInterval: Double? = 60,
            errorInterval: ClosedRange<Double>? = nil,
            link: LinkFaults = LinkFaults(jitter: 0.002, burstHold: 0.05, disconnectGap: 2...2),
            sequenceGapProbability: Double = 0,
            componentID: UInt32 = 1,
            sendsHandshake: Bool = true,
            delivery: BLEDelivery? = nil
        ) {
            self.gestureInterval = gestureInterval
            self.gestures = gestures
            self.touchPause = touchPause
            self.touchDuration = touchDuration
            self.touchRate = touchRate
            self.imuRate = imuRate
            self.imuSamplesPerNotification = imuSamplesPerNotification
            self.batteryInterval = batteryInterval
            self.errorInterval = errorInterval
            self.link = link
            self.sequenceGapProbability = sequenceGapProbability
            self.componentID = componentID
            self.sendsHandshake = sendsHandshake
            self.delivery = delivery
        }

        /// A worn tag: gestures every 2…8 s, touches of 0.3…1.5 s at
        /// 20…50 Hz every 2…6 s, IMU at 100 Hz (3 samples per notification),
        /// battery every 60 s, 2 ms jitter, no faults.
        public static let `default` = Configuration()

        /// Every scenario at once: bursts, disconnects every 20…40 s with a
        /// 1.5 s gap, touch sequence gaps, Error notifications and 2 %
        /// malformed packets.
        public static let stress = Configuration(
            gestureInterval: 0.5...3,
            batteryInterval: 10,
            errorInterval: 15...30,
            link: LinkFaults(
                jitter: 0.005, burstProbability: 0.02, burstHold: 0.05, connectedTime: 20...40,
                disconnectGap: 1.5...1.5,
                malformedRate: 0.02),
            sequenceGapProbability: 0.05
        )
    }

    /// One simulated notification, with the ground truth it encodes.
    public struct SimulatedNotification: SimulatedNotificationProtocol, RetimableNotification {
        /// Time since the start of the simulation, to the nanosecond; never
        /// decreases. With a delivery, the instant the host receives it.
        public var offset: Duration
        /// The characteristic that notifies.
        public var characteristic: CharacteristicUUID
        /// The notification's value, byte for byte.
        public var bytes: [UInt8]
        /// The values a decoder emits for this notification, in order (empty
        /// for a fragment that does not complete a message, and when malformed).
        public var values: [JacquardValue]
        /// The error a decoder throws for this notification, or `nil` when it is well-formed.
        public var malformed: JacquardDecodeError.Code?
        /// With a delivery, when each of ``values`` was measured: the truth,
        /// time since the start on the host's clock, never after ``offset``
        /// (an IMU sample's own instant, any other value's when it was
        /// sent); empty without a delivery. Never part of the bytes.
        public var measuredAt: [Duration]

        /// Creates a simulated notification.
        ///
        /// - Parameters:
        ///   - offset: Time since the start of the simulation.
        ///   - characteristic: The characteristic that notifies.
        ///   - bytes: The value.
        ///   - values: The values it decodes to.
        ///   - malformed: The error it decodes to, if malformed.
        ///   - measuredAt: When each value was measured, with a delivery.
        public init(
            offset: Duration,
            characteristic: CharacteristicUUID,
            bytes: [UInt8],
            values: [JacquardValue],
            malformed: JacquardDecodeError.Code? = nil,
            measuredAt: [Duration] = []
        ) {
            self.offset = offset
            self.characteristic = characteristic
            self.bytes = bytes
            self.values = values
            self.malformed = malformed
            self.measuredAt = measuredAt
        }

        /// Whether the notification is a malformed packet.
        public var isMalformed: Bool { malformed != nil }
    }

    /// The seed the simulator was created with.
    public let seed: UInt64
    /// What the simulated tag sends.
    public let configuration: Configuration
    /// The tag's vendor id, from the seed.
    public let vendorID: UInt32
    /// The tag's product id, from the seed.
    public let productID: UInt32
    /// The tag's UUID text (8-4-4-4-12, lower case), from the seed.
    public let tagUUID: String

    private var random: SeededRandom
    /// Notifications due before anything else, oldest first (later
    /// fragments of a message, the second half of a malformed pair, the handshake).
    private var pending: [SimulatedNotification] = []
    private var pendingIndex = 0
    /// The last offset handed out, in seconds.
    private var now: Double = 0
    /// Until when a burst holds notifications back.
    private var burstEnd: Double = -1
    /// Device tick count at offset zero (ticks are milliseconds).
    private let tickBase: UInt32

    private var gestureAt = Double.infinity
    private var touchNominal = Double.infinity
    private var touchAt = Double.infinity
    private var touching = false
    private var touchEnd: Double = 0
    private var touchPeriod: Double = 0.03
    private var touchStart: Double = 0
    private var touchFrom: Double = 0
    private var touchTo: Double = 11
    private var touchSequence: UInt32 = 0
    private var imuNominal = Double.infinity
    private var imuAt = Double.infinity
    private var imuCounter: UInt8 = 0
    private var batteryNominal = Double.infinity
    private var batteryAt = Double.infinity
    private var batteryLevel: UInt32
    private var errorAt = Double.infinity
    private var disconnectAt = Double.infinity
    private var reconnectAt = Double.infinity
    private var responseID: UInt32 = 0
    /// The largest jitter and the burst probability (both 0 with a delivery).
    private let jitter: Double
    private let burstProbability: Double
    /// The delivery's clock, if any.
    private let clock: DeviceClock?
    var bleLink: ConnectionEventLink<SimulatedNotification>?
    var bleUpcoming: SimulatedNotification?

    /// Creates a simulator.
    ///
    /// - Parameters:
    ///   - seed: Fixes the tag's identity and everything it sends.
    ///   - configuration: What to send; rates and intervals must be positive
    ///     and finite, and `imuSamplesPerNotification` 1…3 (checked with `precondition`).
    public init(seed: UInt64, configuration: Configuration = .default) {
        let c = configuration
        precondition(c.imuRate >= 0 && c.imuRate.isFinite, "imuRate must be finite and not negative")
        precondition((1...3).contains(c.imuSamplesPerNotification), "imuSamplesPerNotification must be 1…3")
        precondition(c.touchRate.lowerBound > 0 && c.touchRate.upperBound.isFinite, "touchRate must be positive")
        precondition(c.gestureInterval == nil || !c.gestures.isEmpty, "gestures must not be empty")
        for range in [c.gestureInterval, c.touchPause, c.errorInterval, c.link.connectedTime, c.touchDuration] {
            if let range {
                precondition(range.lowerBound > 0 && range.upperBound.isFinite, "intervals must be positive")
            }
        }
        if let interval = c.batteryInterval {
            precondition(interval > 0 && interval.isFinite, "batteryInterval must be positive")
        }
        precondition(
            c.link.jitter >= 0 && c.link.burstHold >= 0 && c.link.disconnectGap.lowerBound >= 0,
            "durations must not be negative")
        self.seed = seed
        self.configuration = configuration
        var identity = SeededRandom(seed: seed ^ 0x4A41_4351_5541_5244)  // "JACQUARD"
        vendorID = UInt32(truncatingIfNeeded: identity.next())
        productID = UInt32(truncatingIfNeeded: identity.next())
        tagUUID = Self.uuidText(identity.next(), identity.next())
        tickBase = UInt32(truncatingIfNeeded: identity.next() % 10_000_000)
        batteryLevel = UInt32(40 + identity.next() % 61)
        random = SeededRandom(seed: identity.next())
        jitter = c.delivery == nil ? c.link.jitter : 0
        burstProbability = c.delivery == nil ? c.link.burstProbability : 0
        clock = c.delivery?.clock
        bleLink = .simulated(seed: seed, delivery: c.delivery)

        if let interval = c.gestureInterval { gestureAt = uniform(interval) }
        if let pause = c.touchPause {
            touchNominal = uniform(pause)
            touchAt = touchNominal
        }
        if c.imuRate > 0 {
            imuNominal = imuPeriod
            imuAt = imuNominal + jitterDelay()
        }
        if c.batteryInterval != nil {
            batteryNominal = 1
            batteryAt = batteryNominal + jitterDelay()
        }
        if let interval = c.errorInterval { errorAt = uniform(interval) }
        if let interval = c.link.connectedTime, c.delivery == nil { disconnectAt = uniform(interval) }
        if c.sendsHandshake {
            let hello = JacquardHello(
                protocolMin: 2, protocolMax: 2, vendor: "Google", model: "Jacquard Tag",
                vendorID: vendorID, productID: productID
            )
            let info = JacquardDeviceInfo(
                vendor: "Google", model: "Jacquard Tag", revision: "3", uuid: tagUUID,
                firmwareMajor: 1, firmwareMinor: 96, firmwarePoint: 0, vendorID: vendorID, productID: productID
            )
            enqueue(.response(JacquardResponse(id: nextResponseID(), status: .ok, payload: .hello(hello))), at: 0)
            enqueue(.response(JacquardResponse(id: nextResponseID(), status: .ok, payload: .deviceInfo(info))), at: 0)
        }
    }

    /// Produces the next notification in time order (receive order, with a delivery).
    ///
    /// - Returns: The notification, its offset and its ground truth.
    public mutating func next() -> SimulatedNotification {
        bleLink == nil ? produce() : deliverNext()
    }

    /// The next notification as the tag sends it, its offset the instant it is due.
    mutating func produce() -> SimulatedNotification {
        if let queued = dequeue() { return queued }
        let times = [reconnectAt, disconnectAt, batteryAt, errorAt, gestureAt, touchAt, imuAt]
        var chosen = 0
        for index in times.indices where times[index] < times[chosen] { chosen = index }
        let t = times[chosen]
        if t == .infinity {
            // Nothing configured: an empty notification envelope once a second.
            now += 1
            let envelope = JacquardValue.notification(JacquardNotification(domain: .base, opcode: 0, componentID: 0))
            enqueue(envelope, at: now)
            return dequeue()!
        }
        let at = stamp(t)
        switch chosen {
        case 0:
            reconnectAt = .infinity
            let attached = JacquardAttached(
                attachState: true, vendorID: vendorID, productID: productID, componentID: configuration.componentID
            )
            send(.attached(attached), at: at)
        case 1:
            disconnect(at: t)
            send(.disconnect(JacquardDisconnect(reconnect: true)), at: at, mayCorrupt: false)
        case 2:
            let status = JacquardBatteryStatus(batteryLevel: batteryLevel, chargingStatus: .notCharging)
            if batteryLevel > 5, random.nextUnit() < 0.3 { batteryLevel -= 1 }
            batteryNominal += configuration.batteryInterval ?? 1
            batteryAt = batteryNominal + jitterDelay()
            send(.batteryStatus(status), at: at)
        case 3:
            errorAt = t + uniform(configuration.errorInterval ?? 1...1)
            let error = JacquardErrorNotification(
                device: 0, subsystem: UInt32(random.next() % 8), errorCode: UInt32(random.next() % 64)
            )
            send(.error(error), at: at)
        case 4:
            gestureAt = t + uniform(configuration.gestureInterval ?? 1...1)
            let gestures = configuration.gestures
            let gesture = gestures[Int(random.next() % UInt64(gestures.count))]
            let event = JacquardGestureEvent(
                gesture: gesture, componentID: configuration.componentID, timestampTicks: ticks(at: t)
            )
            send(.gesture(event), at: at)
        case 5:
            send(.touchFrame(touchFrame(at: t)), at: at)
        default:
            sendIMU(at: at, time: t)
        }
        return dequeue()!
    }

    // MARK: Streams

    private var imuPeriod: Double { Double(configuration.imuSamplesPerNotification) / configuration.imuRate }

    /// Builds the next touch frame at `t` and schedules the one after.
    private mutating func touchFrame(at t: Double) -> JacquardTouchFrame {
        if !touching {
            touching = true
            touchStart = t
            touchEnd = t + uniform(configuration.touchDuration)
            touchPeriod = 1 / uniform(configuration.touchRate)
            touchFrom = uniform(-1...12)
            touchTo = uniform(-1...12)
        }
        let progress = min(max((t - touchStart) / max(touchEnd - touchStart, 1e-9), 0), 1)
        let position = touchFrom + (touchTo - touchFrom) * progress
        var lines: [UInt8] = []
        lines.reserveCapacity(12)
        for line in 0..<12 {
            let distance = Double(line) - position
            let level = 128 - 45 * (distance < 0 ? -distance : distance) + random.noise(6)
            lines.append(UInt8(min(max(Int(level), 0), 128)))
        }
        let proximity = UInt8(min(max(Int(30 + 20 * Self.wave((t - touchStart) * 0.7) + random.noise(3)), 0), 255))
        if random.nextUnit() < configuration.sequenceGapProbability {
            touchSequence &+= UInt32(2 + random.next() % 8)
        } else {
            touchSequence &+= 1
        }
        let frame = JacquardTouchFrame(
            sequence: touchSequence, proximity: proximity, lines: lines,
            componentID: configuration.componentID, timestampTicks: ticks(at: t)
        )
        touchNominal += touchPeriod
        if touchNominal > touchEnd {
            touching = false
            touchNominal = touchEnd + uniform(configuration.touchPause ?? 1...1)
        }
        touchAt = touchNominal + jitterDelay()
        return frame
    }

    /// Sends the next IMU notification (`at` is its stamp, `time` its schedule).
    private mutating func sendIMU(at: Double, time t: Double) {
        let count = configuration.imuSamplesPerNotification
        var samples: [JacquardIMUSample] = []
        samples.reserveCapacity(count)
        let nominal = imuNominal
        for index in 0..<count {
            let sampleTime = nominal - Double(count - 1 - index) / configuration.imuRate
            func counts(_ value: Double) -> Int16 { Int16(min(max(value, -32768), 32767)) }
            samples.append(
                JacquardIMUSample(
                    sensorID: 0,
                    accelX: counts(180 * Self.wave(sampleTime * 0.9) + random.noise(25)),
                    accelY: counts(120 * Self.wave(sampleTime * 0.9 + 0.25) + random.noise(25)),
                    accelZ: counts(2048 + 60 * Self.wave(sampleTime * 1.8) + random.noise(25)),
                    gyroX: counts(300 * Self.wave(sampleTime * 0.5) + random.noise(15)),
                    gyroY: counts(200 * Self.wave(sampleTime * 0.5 + 0.25) + random.noise(15)),
                    gyroZ: counts(100 * Self.wave(sampleTime * 0.3) + random.noise(15)),
                    timestampTicks: ticks(at: sampleTime)
                )
            )
        }
        imuNominal += imuPeriod
        imuAt = imuNominal + jitterDelay()
        let bytes = JacquardMessageEncoder.imuNotification(samples: samples, sensorID: 0, header: imuCounter)
        imuCounter &+= 1
        if random.nextUnit() < configuration.link.malformedRate {
            let cut = random.next() % 4 == 0 ? bytes.count - 1 : Int(1 + random.next() % 15)
            let code: JacquardDecodeError.Code = bytes.count - cut < 2 ? .imuTooShort : .imuPartialSample
            push(JacquardGATT.rawData, Array(bytes.dropLast(cut)), [], code, at: at)
        } else {
            let measured = (0..<count).map { nominal - Double(count - 1 - $0) / configuration.imuRate }
            push(JacquardGATT.rawData, bytes, samples.map { .imuSample($0) }, nil, at: at, measured: measured)
        }
    }

    /// Starts a disconnect at `t`: silence every stream for the gap, then reconnect.
    private mutating func disconnect(at t: Double) {
        let gap = configuration.link.disconnectGap
        let back = t + (gap.lowerBound == gap.upperBound ? gap.lowerBound : uniform(gap))
        reconnectAt = back
        disconnectAt = back + uniform(configuration.link.connectedTime ?? 1...1)
        if gestureAt.isFinite { gestureAt = max(gestureAt, back + uniform(configuration.gestureInterval ?? 1...1)) }
        if touchAt.isFinite {
            touching = false
            touchNominal = back + uniform(configuration.touchPause ?? 1...1)
            touchAt = touchNominal
        }
        if imuAt.isFinite, imuNominal < back {
            imuNominal = back + imuPeriod
            imuAt = imuNominal + jitterDelay()
        }
        if batteryAt.isFinite, batteryNominal < back {
            batteryNominal = back + 0.5
            batteryAt = batteryNominal + jitterDelay()
        }
        if errorAt.isFinite, errorAt < back { errorAt = back + uniform(configuration.errorInterval ?? 1...1) }
    }

    // MARK: Output

    /// Encodes a notify-characteristic value and queues it, possibly corrupted.
    private mutating func send(_ value: JacquardValue, at: Double, mayCorrupt: Bool = true) {
        guard mayCorrupt, configuration.link.malformedRate > 0, random.nextUnit() < configuration.link.malformedRate
        else {
            enqueue(value, at: at)
            return
        }
        let message = JacquardMessageEncoder.message(for: value) ?? []
        let notify = JacquardGATT.notify
        switch random.next() % 5 {
        case 0:
            // A continuation fragment with no message in progress.
            var bytes: [UInt8] = [UInt8(random.next() % 0x80)]
            bytes.append(contentsOf: message.prefix(40))
            push(notify, bytes, [], .fragmentWithoutStart, at: at)
        case 1:
            // A single fragment whose declared length is off by 1…3.
            let delta = Int(1 + random.next() % 3)
            let declared =
                random.next() % 2 == 0 || message.count < delta ? message.count + delta : message.count - delta
            var bytes: [UInt8] = [0xC0]
            bytes.append(contentsOf: JacquardProtobufWriter.varint(UInt64(declared)))
            bytes.append(contentsOf: message)
            push(notify, bytes, [], .lengthMismatch, at: at)
        case 2:
            // A well-framed message cut inside its last (extension) field.
            let truncated = Array(message.dropLast())
            var bytes: [UInt8] = [0xC0]
            bytes.append(contentsOf: JacquardProtobufWriter.varint(UInt64(truncated.count)))
            bytes.append(contentsOf: truncated)
            push(notify, bytes, [], .truncatedField, at: at)
        case 3:
            // A FIRST fragment, then one whose counter skips a step.
            var first: [UInt8] = [0x80, 100]
            var second: [UInt8] = [0x02]
            for _ in 0..<40 { first.append(UInt8(truncatingIfNeeded: random.next())) }
            for _ in 0..<20 { second.append(UInt8(truncatingIfNeeded: random.next())) }
            push(notify, first, [], nil, at: at)
            push(notify, second, [], .fragmentOutOfSequence, at: at)
        default:
            // A FIRST fragment declaring more than 1024 bytes.
            var bytes: [UInt8] = [0x80]
            bytes.append(contentsOf: JacquardProtobufWriter.varint(1025 + random.next() % 3000))
            bytes.append(contentsOf: message.prefix(30))
            push(notify, bytes, [], .messageTooLong, at: at)
        }
    }

    /// Queues the fragments of a value; the last one carries the value.
    private mutating func enqueue(_ value: JacquardValue, at: Double) {
        let (role, fragments) = JacquardMessageEncoder.notifications(for: value)
        for (index, fragment) in fragments.enumerated() {
            push(role.uuid, fragment, index == fragments.count - 1 ? [value] : [], nil, at: at)
        }
    }

    private mutating func push(
        _ characteristic: CharacteristicUUID,
        _ bytes: [UInt8],
        _ values: [JacquardValue],
        _ malformed: JacquardDecodeError.Code?,
        at: Double,
        measured: [Double]? = nil
    ) {
        var measuredAt: [Duration] = []
        if let clock {
            measuredAt = (measured ?? values.map { _ in at }).map {
                .nanoseconds(Int64(clock.hostSeconds(atDeviceSeconds: $0) * 1e9))
            }
        }
        let host = clock?.hostSeconds(atDeviceSeconds: at) ?? at
        pending.append(
            SimulatedNotification(
                offset: .nanoseconds(Int64(host * 1e9)), characteristic: characteristic, bytes: bytes, values: values,
                malformed: malformed, measuredAt: measuredAt
            )
        )
    }

    private mutating func dequeue() -> SimulatedNotification? {
        guard pendingIndex < pending.count else { return nil }
        let notification = pending[pendingIndex]
        pendingIndex += 1
        if pendingIndex == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingIndex = 0
        }
        return notification
    }

    /// The delivery time of a notification scheduled at `t`: bursts hold it
    /// back, and time never runs backwards.
    private mutating func stamp(_ t: Double) -> Double {
        var at = max(t, now)
        if at < burstEnd {
            at = burstEnd
        } else if burstProbability > 0, random.nextUnit() < burstProbability {
            burstEnd = at + configuration.link.burstHold
            at = burstEnd
        }
        now = at
        return at
    }

    // MARK: Helpers

    private mutating func nextResponseID() -> UInt32 {
        responseID &+= 1
        return responseID
    }

    private mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * random.nextUnit()
    }

    private mutating func jitterDelay() -> Double {
        jitter > 0 ? jitter * random.nextUnit() : 0
    }

    /// Device ticks (milliseconds) at `t` seconds: the delivery's clock,
    /// its low 32 bits (the field's width), or the seeded base.
    private func ticks(at t: Double) -> UInt32 {
        if let clock {
            return UInt32(truncatingIfNeeded: clock.ticks(atDeviceSeconds: max(t, 0)))
        }
        return tickBase &+ UInt32(truncatingIfNeeded: Int64(max(t, 0) * 1000))
    }

    /// A smooth periodic wave in -1…1 with period 1 (a parabolic sine), from
    /// basic operations only so results are the same on every platform.
    static func wave(_ cycles: Double) -> Double {
        let whole = Double(Int64(cycles))
        var x = cycles - whole
        if x < 0 { x += 1 }
        return x < 0.5 ? 16 * x * (0.5 - x) : -16 * (x - 0.5) * (1 - x)
    }

    /// Two random words as a version-4 UUID text.
    private static func uuidText(_ high: UInt64, _ low: UInt64) -> String {
        let high = high & 0xFFFF_FFFF_FFFF_0FFF | 0x0000_0000_0000_4000
        let low = low & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        return "\(hex(high >> 32, 8))-\(hex(high >> 16 & 0xFFFF, 4))-\(hex(high & 0xFFFF, 4))-"
            + "\(hex(low >> 48, 4))-\(hex(low & 0xFFFF_FFFF_FFFF, 12))"
    }
}
