/// A seeded, deterministic Obvious device: feature toggles over time and
/// periodic firmware upgrades, encoded in recorder profile v1.
///
/// At offset 0 the device sends the status of every feature (one `0x01`
/// notification) and its firmware version. Then, in time order:
/// - every `meanToggleInterval × U(0.5, 1.5)` seconds one feature changes:
///   activated ↔ deactivated, or it is locked (disabled) or unlocked; usually
///   only that feature is sent, sometimes the full list;
/// - from `firstUpgradeAt`, and `upgradeInterval` after each upgrade ends, a
///   firmware upgrade runs: progress 0, `progressStep`, … 100 every
///   `progressInterval` seconds (each progress notification is skipped with
///   probability `progressGapRate`: a sequence gap), then status `success` and,
///   `rebootTime` later, the new version (minor + 1). With probability
///   `upgradeFailureRate` the upgrade instead stops at a random progress with
///   a failure status (download failed, failed, bond cancelled, unavailable)
///   and the version stays.
///
/// The link adds jitter, bursts and disconnect gaps (nothing is delivered in a
/// gap; on reconnect the device re-sends feature list and version). With
/// probability `link.malformedRate` a notification's bytes are replaced by a
/// malformed packet (``SimulatedPacket/expected`` is `nil`).
///
/// ```swift
/// var simulator = ObviousSimulator(seed: 42)
/// let decoder = ObviousDecoder()
/// for _ in 0..<100 {
///     let notification = simulator.next()
///     let decoded = try? decoder.decode(notification.rawNotification(startTime: 0))
///     assert(decoded == notification.expected)
/// }
/// ```
public struct ObviousSimulator: NotificationSimulator, BLEDeliveringSimulator {
    /// What the simulated device does and how its link behaves. Times are in
    /// seconds; rates are probabilities in 0…1.
    public struct Configuration: Sendable, Hashable {
        /// The feature ids the device manages.
        public var featureIDs: [UInt16]
        /// The firmware version at the start.
        public var initialVersion: ObviousFirmwareVersion
        /// Mean time between feature changes.
        public var meanToggleInterval: Double
        /// When the first upgrade starts.
        public var firstUpgradeAt: Double
        /// Time from the end of one upgrade to the start of the next.
        public var upgradeInterval: Double
        /// Progress increment per progress notification (1…100).
        public var progressStep: UInt8
        /// Time between progress notifications.
        public var progressInterval: Double
        /// Probability that a progress notification is never sent (a gap).
        public var progressGapRate: Double
        /// Probability that an upgrade fails.
        public var upgradeFailureRate: Double
        /// Time from `success` to the new version notification.
        public var rebootTime: Double
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
            featureIDs: [UInt16] = [1, 2, 3, 5, 8, 13],
            initialVersion: ObviousFirmwareVersion = ObviousFirmwareVersion(code: 2_004_001),
            meanToggleInterval: Double = 12,
            firstUpgradeAt: Double = 60,
            upgradeInterval: Double = 300,
            progressStep: UInt8 = 5,
            progressInterval: Double = 1,
            progressGapRate: Double = 0.05,
            upgradeFailureRate: Double = 0.3,
            rebootTime: Double = 4,
            link: LinkFaults = LinkFaults(
                jitter: 0.02, burstProbability: 0.02, burstHold: 0.5, connectedTime: 300...900, disconnectGap: 2...15,
                malformedRate: 0.01),
            delivery: BLEDelivery? = nil
        ) {
            self.featureIDs = featureIDs
            self.initialVersion = initialVersion
            self.meanToggleInterval = meanToggleInterval
            self.firstUpgradeAt = firstUpgradeAt
            self.upgradeInterval = upgradeInterval
            self.progressStep = progressStep
            self.progressInterval = progressInterval
            self.progressGapRate = progressGapRate
            self.upgradeFailureRate = upgradeFailureRate
            self.rebootTime = rebootTime
            self.link = link
            self.delivery = delivery
        }

        /// Six features, an upgrade a minute in and every five minutes, 1 %
        /// malformed packets, a disconnect about every ten minutes.
        public static let `default` = Configuration()

        /// The same device with a perfect link and no malformed packets.
        public static let clean = Configuration(link: .clean)
    }

    /// One simulated notification with the ObviousMessage it encodes as ground truth
    /// (`nil` when deliberately malformed).
    public typealias SimulatedNotification = SimulatedPacket<ObviousMessage>

    private enum UpgradePhase: Sendable, Hashable {
        case idle
        case progressing(percent: Int, failAt: Int?, failure: ObviousUpgradeStatus)
        case succeeded
        case rebooting
    }

    /// The seed the simulator was created with.
    public let seed: UInt64
    /// What the simulated device does.
    public let configuration: Configuration
    /// The device's current feature statuses (ground truth, in id order of the configuration).
    public private(set) var features: [ObviousFeatureStatus]
    /// The device's current firmware version.
    public private(set) var version: ObviousFirmwareVersion

    private var random: SeededRandom
    private var link: SimulatedLink
    var bleLink: ConnectionEventLink<SimulatedNotification>?
    var bleUpcoming: SimulatedNotification?
    private var queue: [SimulatedNotification] = []
    private var started = false
    private var nextToggleAt: Double
    private var nextUpgradeEventAt: Double
    private var phase = UpgradePhase.idle

    /// Creates a simulator.
    ///
    /// - Parameters:
    ///   - seed: Fixes every generated value.
    ///   - configuration: The scenario. Out-of-range settings are clamped
    ///     (a progress step of 0 counts as 1, non-positive intervals as 1 s).
    public init(seed: UInt64, configuration: Configuration = .default) {
        self.seed = seed
        self.configuration = configuration
        var random = SeededRandom(seed: seed)
        link = SimulatedLink(seed: random.next(), faults: configuration.link, clock: configuration.delivery?.clock)
        bleLink = .simulated(seed: seed, delivery: configuration.delivery)
        features = configuration.featureIDs.map { id in
            let draw = random.nextUnit()
            if draw < 0.2 { return ObviousFeatureStatus(featureID: id, enabled: false, toggle: .unknown) }
            if draw < 0.3 { return ObviousFeatureStatus(featureID: id, enabled: true, toggle: .unsupported) }
            return ObviousFeatureStatus(featureID: id, enabled: true, toggle: draw < 0.65 ? .activated : .deactivated)
        }
        version = configuration.initialVersion
        nextToggleAt = Self.positive(configuration.meanToggleInterval) * (0.5 + random.nextUnit())
        nextUpgradeEventAt = max(configuration.firstUpgradeAt.isFinite ? configuration.firstUpgradeAt : 0, 0)
        self.random = random
    }

    private static func positive(_ seconds: Double) -> Double {
        seconds.isFinite && seconds > 0 ? seconds : 1
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
            send([.featureStatus(features), .firmwareVersion(version)], at: 0)
            return
        }
        if nextToggleAt <= nextUpgradeEventAt {
            toggle()
        } else {
            advanceUpgrade()
        }
    }

    private mutating func toggle() {
        let t = nextToggleAt
        nextToggleAt = t + Self.positive(configuration.meanToggleInterval) * (0.5 + random.nextUnit())
        guard !features.isEmpty else { return }
        let index = Int(random.next() % UInt64(features.count))
        var feature = features[index]
        if random.nextUnit() < 0.15 || !feature.enabled {
            feature.enabled.toggle()
            feature.toggle = feature.enabled ? .deactivated : .unknown
        } else {
            switch feature.toggle {
            case .activated: feature.toggle = .deactivated
            case .deactivated: feature.toggle = .activated
            case .unknown, .unsupported: feature.toggle = random.nextUnit() < 0.5 ? .activated : .unsupported
            }
        }
        features[index] = feature
        send([.featureStatus(random.nextUnit() < 0.1 ? features : [feature])], at: t)
    }

    private mutating func advanceUpgrade() {
        let t = nextUpgradeEventAt
        let step = Int(min(max(configuration.progressStep, 1), 100))
        let interval = Self.positive(configuration.progressInterval)
        switch phase {
        case .idle:
            let fails = random.nextUnit() < configuration.upgradeFailureRate
            let failures: [ObviousUpgradeStatus] = [.downloadFailed, .failed, .bondCancelled, .unavailable]
            let failure = failures[Int(random.next() % 4)]
            let failAt = fails ? Int(random.next() % UInt64(100 / step + 1)) * step : nil
            phase = .progressing(percent: 0, failAt: failAt, failure: failure)
            sendProgress(0, at: t, failAt: failAt, failure: failure)
            nextUpgradeEventAt = t + interval
        case .progressing(let percent, let failAt, let failure):
            if let failAt, percent >= failAt {
                // sendProgress already reported the failure at this percent.
                phase = .idle
                nextUpgradeEventAt = t + Self.positive(configuration.upgradeInterval)
                return
            }
            if percent >= 100 {
                phase = .succeeded
                nextUpgradeEventAt = t
                return
            }
            let next = min(percent + step, 100)
            phase = .progressing(percent: next, failAt: failAt, failure: failure)
            sendProgress(next, at: t, failAt: failAt, failure: failure)
            nextUpgradeEventAt = t + interval
        case .succeeded:
            send([.upgradeStatus(.success)], at: t)
            phase = .rebooting
            nextUpgradeEventAt = t + Self.positive(configuration.rebootTime)
        case .rebooting:
            version = Self.upgraded(version)
            send([.firmwareVersion(version)], at: t)
            phase = .idle
            nextUpgradeEventAt = t + Self.positive(configuration.upgradeInterval)
        }
    }

    private mutating func sendProgress(_ percent: Int, at t: Double, failAt: Int?, failure: ObviousUpgradeStatus) {
        if let failAt, percent >= failAt {
            send([.upgradeStatus(failure)], at: t)
        } else if random.nextUnit() >= configuration.progressGapRate {
            send([.upgradeProgress(UInt8(percent))], at: t)
        }
    }

    /// The version after a successful upgrade: minor + 1, patch 0.
    static func upgraded(_ version: ObviousFirmwareVersion) -> ObviousFirmwareVersion {
        guard let parts = version.components else { return ObviousFirmwareVersion(code: 1_000_000) }
        if parts.minor < 999 { return ObviousFirmwareVersion(major: parts.major, minor: parts.minor + 1, patch: 0)! }
        return ObviousFirmwareVersion(major: min(parts.major + 1, 999), minor: 0, patch: 0)!
    }

    private mutating func send(_ messages: [ObviousMessage], at t: Double) {
        var messages = messages
        switch link.state(at: t) {
        case .disconnected: return
        case .reconnected: messages.insert(contentsOf: [.featureStatus(features), .firmwareVersion(version)], at: 0)
        case .connected: break
        }
        for message in messages {
            if message == .featureStatus([]) { continue }
            let offset = link.deliveryOffset(nominal: t)
            if random.nextUnit() < configuration.link.malformedRate {
                queue.append(
                    SimulatedNotification(
                        offset: offset,
                        characteristic: ObviousGATT.data,
                        bytes: malformed(),
                        expected: nil
                    )
                )
            } else {
                queue.append(
                    SimulatedNotification(
                        offset: offset,
                        characteristic: ObviousGATT.data,
                        bytes: ObviousEncoder.encode(message),
                        expected: message
                    )
                )
            }
        }
    }

    /// A value that breaks one profile-v1 rule.
    private mutating func malformed() -> [UInt8] {
        func byte(_ range: ClosedRange<UInt8>) -> UInt8 {
            range.lowerBound
                &+ UInt8(truncatingIfNeeded: random.next() % (UInt64(range.upperBound - range.lowerBound) + 1))
        }
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in byte(0...255) } }
        func record(enabled: UInt8, toggle: UInt8) -> [UInt8] { [byte(0...255), byte(0...255), enabled, toggle] }
        switch random.next() % 10 {
        case 0: return []
        case 1: return [random.nextUnit() < 0.2 ? 0 : byte(5...255)] + bytes(Int(random.next() % 9))
        case 2: return [0x01]
        case 3: return [0x01] + bytes(4 * Int(random.next() % 3) + Int(byte(1...3)))
        case 4:
            return [0x01] + record(enabled: byte(0...1), toggle: byte(0...3))
                + record(enabled: byte(2...255), toggle: byte(0...3))
        case 5: return [0x01] + record(enabled: byte(0...1), toggle: byte(4...255))
        case 6:
            let length = Int(random.next() % 16)
            return [0x02] + bytes(length == 8 ? 9 : length)
        case 7: return [0x03, byte(101...255)]
        case 8: return [random.nextUnit() < 0.5 ? 0x03 : 0x04] + bytes(random.nextUnit() < 0.5 ? 0 : Int(byte(2...4)))
        default: return [0x04, byte(5...255)]
        }
    }
}
