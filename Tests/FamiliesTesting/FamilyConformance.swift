public import Devices
public import Families
import TestSupport
public import Testing

/// The checks every registered family passes, run through its descriptor
/// alone: what SwiftNIO's `ByteToMessageDecoderVerifier` is to a decoder,
/// this is to a family. A family gets them by being in a registry; the
/// package's conformance suite runs them over every family it registers.
///
/// - ``verifyFuzzing(rounds:seed:sourceLocation:inspect:)``: random packets
///   and mutated simulated ones never trap; a rejection is the family's one
///   error type, with a description, and nothing is emitted for it; both
///   outcomes are reached; the decoder stays usable afterwards.
/// - ``verifyRoundTrip(count:sourceLocation:)``: the simulator is
///   deterministic, its offsets never go backwards, and every clean
///   notification decodes to the value it encodes.
/// - ``verifyLinkFaults(count:sourceLocation:)``: with faults on (``LinkFaults``),
///   offsets still never go backwards, malformed packets appear and are
///   rejected with typed errors, and every other packet decodes to its value.
///
/// Where a simulated notification carries its ground truth
/// (``SimulatedGroundTruth``; every ``SimulatedPacket`` does), decoded values
/// are compared with it by their descriptions.
///
/// ```swift
/// let conformance = FamilyConformance(.thermometer, in: FamilyRegistry.builtIn.adding(.thermometer))
/// let report = try conformance.verifyFuzzing(rounds: 100_000)
/// try conformance.verifyRoundTrip()
/// try conformance.verifyLinkFaults()
/// ```
public struct FamilyConformance: Sendable {
    /// The registry the family is in (its simulators are asked for through it).
    public let registry: FamilyRegistry
    /// The family under test.
    public let descriptor: FamilyDescriptor

    /// The harness for `family` of `registry`; traps when the registry does not know it.
    public init(_ family: DeviceFamily, in registry: FamilyRegistry) {
        guard let descriptor = registry[family] else { preconditionFailure("\(family) is not registered") }
        self.registry = registry
        self.descriptor = descriptor
    }

    /// How many times the fuzzing repeats its base rounds: `TLM_FUZZ_SCALE`
    /// (default 1, as `make test` runs it; `make fuzz` sets 100).
    public static let fuzzScale = FuzzScale.current

    // MARK: Fuzzing

    /// Decodes `rounds` random and mutated packets with one decoder: random
    /// bytes on the family's characteristics (and foreign ones), and simulated
    /// packets with bits flipped, bytes replaced, cut, extended, spliced with
    /// another's tail, or moved to another characteristic.
    ///
    /// - Parameters:
    ///   - rounds: Packets to decode.
    ///   - seed: Fixes every packet.
    ///   - inspect: Sees each packet and its outcome, for family-specific assertions.
    /// - Returns: What the decoder made of the packets.
    @discardableResult
    public func verifyFuzzing(
        rounds: Int, seed: UInt64 = 0xF022, sourceLocation: SourceLocation = #_sourceLocation,
        inspect: (RawNotification, FamilyFuzzOutcome) -> Void = { _, _ in }
    ) throws -> FamilyFuzzReport {
        var random = SplitMix64(seed: seed)
        let clean = simulated(count: 2_000, faults: false)
        let corpus = (clean + simulated(count: 2_000, faults: true)).map { ($0.characteristic, $0.bytes) }
        let characteristics = self.characteristics(seen: corpus.map(\.0))
        var decoder = try descriptor.makeDecoder()
        var report = FamilyFuzzReport()
        var errorTypes: Set<ObjectIdentifier> = []
        for round in 0..<rounds {
            var characteristic: CharacteristicUUID
            var bytes: [UInt8]
            if corpus.isEmpty || round % 4 == 0 {
                characteristic = characteristics.randomElement(using: &random)!
                let length =
                    Int.random(in: 0...3, using: &random) == 0
                    ? Int.random(in: 0...64, using: &random) : Int.random(in: 0...12, using: &random)
                bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            } else {
                (characteristic, bytes) = corpus.randomElement(using: &random)!
                Self.mutate(&bytes, corpus: corpus, using: &random)
                if Int.random(in: 0...9, using: &random) == 0 {
                    characteristic = characteristics.randomElement(using: &random)!
                }
            }
            let notification = RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: 0)
            var values: [any Encodable & Sendable] = []
            do {
                try decoder.decode(notification) { values.append($0) }
                report.decoded += 1
                report.values += values.count
                inspect(notification, .decoded(values))
            } catch {
                #expect(
                    values.isEmpty, "\(family): values emitted for a rejected packet", sourceLocation: sourceLocation)
                #expect(
                    !error.description.isEmpty, "\(family): an error without a description",
                    sourceLocation: sourceLocation)
                errorTypes.insert(ObjectIdentifier(type(of: error.underlying)))
                report.rejected += 1
                inspect(notification, .rejected(error))
            }
        }
        #expect(
            errorTypes.count <= 1, "\(family): errors of \(errorTypes.count) types, not one",
            sourceLocation: sourceLocation)
        #expect(
            report.decoded >= rounds / 100, "\(family): \(report.decoded) of \(rounds) decoded",
            sourceLocation: sourceLocation)
        #expect(
            report.rejected >= rounds / 100, "\(family): \(report.rejected) of \(rounds) rejected",
            sourceLocation: sourceLocation)
        // Still usable: on a clean stream it soon agrees with a fresh decoder
        // (a stateful one may spoil the next message of each characteristic).
        var fresh = try descriptor.makeDecoder()
        var disagreements = 0
        for packet in clean {
            let notification = RawNotification(
                characteristic: packet.characteristic, bytes: packet.bytes, receiveTime: 0)
            if Self.outcome(of: notification, &decoder) != Self.outcome(of: notification, &fresh) { disagreements += 1 }
        }
        let allowed = 2 * Set(clean.map(\.characteristic)).count
        #expect(
            disagreements <= allowed, "\(family): \(disagreements) packets decoded differently after fuzzing",
            sourceLocation: sourceLocation)
        return report
    }

    /// The characteristics random packets go to: the family's own (capture,
    /// advertisement, simulated) and two it does not know.
    private func characteristics(seen: [CharacteristicUUID]) -> [CharacteristicUUID] {
        let own =
            descriptor.capture.notified + descriptor.capture.read + descriptor.advertisement.services
            + descriptor.advertisement.fallbackServices + seen
        var unique: [CharacteristicUUID] = []
        for characteristic in own + [
            CharacteristicUUID(short: 0x2A37), CharacteristicUUID(high: 0x0123_4567, low: 0x89AB),
        ]
        where !unique.contains(characteristic) {
            unique.append(characteristic)
        }
        return unique
    }

    /// One to three mutations of a packet.
    private static func mutate(
        _ bytes: inout [UInt8], corpus: [(CharacteristicUUID, [UInt8])], using random: inout SplitMix64
    ) {
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            switch Int.random(in: 0...5, using: &random) {
            case 0 where !bytes.isEmpty:
                bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= 1 << UInt8.random(in: 0...7, using: &random)
            case 1 where !bytes.isEmpty:
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 2 where !bytes.isEmpty:
                bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))
            case 3:
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    bytes.append(UInt8.random(in: 0...255, using: &random))
                }
            case 4:
                let other = corpus.randomElement(using: &random)!.1
                bytes += other.dropFirst(Int.random(in: 0...other.count, using: &random))
            default:
                break
            }
        }
    }

    /// A notification's outcome as text: its values' descriptions, or the error's.
    private static func outcome(of notification: RawNotification, _ decoder: inout any FamilyDecoder) -> String {
        var values: [String] = []
        do {
            try decoder.decode(notification) { values.append(String(describing: $0)) }
            return values.joined(separator: "\n")
        } catch {
            return "error: \(error.description)"
        }
    }

    // MARK: Simulation

    /// `count` notifications of the family's simulator (seed 1 of the
    /// registry), with their ground truth where the simulator gives one;
    /// none when the family has no simulator.
    func simulated(count: Int, faults: Bool, seed: UInt64 = 1) -> [SimulatedTruth] {
        guard let device = registry.simulator(of: family, seed: seed, faults: faults) else { return [] }
        if let simulator = device as? any NotificationSimulator { return Self.run(simulator, count: count) }
        var plain = device
        return (0..<count).map { _ in
            let (offset, characteristic, bytes) = plain.nextNotification()
            return SimulatedTruth(offset: offset, characteristic: characteristic, bytes: bytes, expected: .unknown)
        }
    }

    private static func run<Simulator: NotificationSimulator>(_ simulator: Simulator, count: Int) -> [SimulatedTruth] {
        var simulator = simulator
        return (0..<count).map { _ in
            let next = simulator.next()
            var expected = SimulatedTruth.Expected.unknown
            if let truth = next as? any SimulatedGroundTruth {
                expected = truth.expectedValues.map { .values($0.map { String(describing: $0) }) } ?? .malformed
            }
            return SimulatedTruth(
                offset: next.offset, characteristic: next.characteristic, bytes: next.bytes, expected: expected)
        }
    }

    /// Simulates `count` clean notifications twice from one seed (the same)
    /// and once from another (different), and decodes them: offsets never go
    /// backwards, every notification decodes, to the value it encodes.
    public func verifyRoundTrip(count: Int = 5_000, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard descriptor.isSimulatable else { return }
        let stream = simulated(count: count, faults: false)
        let again = simulated(count: count, faults: false)
        let otherSeed = simulated(count: count, faults: false, seed: 2)
        #expect(stream == again, "\(family): the simulator is not deterministic", sourceLocation: sourceLocation)
        #expect(stream != otherSeed, "\(family): the seed changes nothing", sourceLocation: sourceLocation)
        let report = try decode(stream, sourceLocation: sourceLocation)
        #expect(
            report.rejected == 0, "\(family): \(report.rejected) clean packets rejected", sourceLocation: sourceLocation
        )
        #expect(report.values > 0, "\(family): no values decoded", sourceLocation: sourceLocation)
        #expect(
            !stream.contains { $0.expected == .malformed }, "\(family): malformed packets on a clean link",
            sourceLocation: sourceLocation)
    }

    /// Simulates `count` notifications with faults on and decodes them:
    /// offsets never go backwards, the stream differs from the clean one,
    /// malformed packets appear and are rejected with the family's typed
    /// error, every other packet decodes to the value it encodes.
    public func verifyLinkFaults(count: Int = 20_000, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard descriptor.isSimulatable else { return }
        let stream = simulated(count: count, faults: true)
        let again = simulated(count: count, faults: true)
        let clean = simulated(count: count, faults: false)
        #expect(stream == again, "\(family): faults are not deterministic", sourceLocation: sourceLocation)
        #expect(stream != clean, "\(family): faults change nothing", sourceLocation: sourceLocation)
        let report = try decode(stream, sourceLocation: sourceLocation)
        #expect(report.rejected > 0, "\(family): no malformed packet in \(count)", sourceLocation: sourceLocation)
        #expect(report.values > 0, "\(family): no values decoded", sourceLocation: sourceLocation)
    }

    /// Decodes `stream` in order with one decoder, checking offsets, errors and ground truth.
    private func decode(_ stream: [SimulatedTruth], sourceLocation: SourceLocation) throws -> FamilyFuzzReport {
        var decoder = try descriptor.makeDecoder()
        var report = FamilyFuzzReport()
        var previous = Duration.zero
        var errorTypes: Set<ObjectIdentifier> = []
        for (index, packet) in stream.enumerated() {
            #expect(
                packet.offset >= previous, "\(family): offset \(index) goes backwards", sourceLocation: sourceLocation)
            previous = packet.offset
            let notification = RawNotification(
                characteristic: packet.characteristic, bytes: packet.bytes, receiveTime: 0)
            var values: [String] = []
            do {
                try decoder.decode(notification) { values.append(String(describing: $0)) }
                report.decoded += 1
                report.values += values.count
                #expect(
                    packet.expected != .malformed, "\(family): malformed packet \(index) decoded",
                    sourceLocation: sourceLocation)
                if case .values(let expected) = packet.expected {
                    #expect(
                        values == expected, "\(family): packet \(index) decoded to other values",
                        sourceLocation: sourceLocation)
                }
            } catch {
                report.rejected += 1
                errorTypes.insert(ObjectIdentifier(type(of: error.underlying)))
                #expect(
                    values.isEmpty, "\(family): values emitted for rejected packet \(index)",
                    sourceLocation: sourceLocation)
                #expect(!error.description.isEmpty, sourceLocation: sourceLocation)
                #expect(
                    packet.expected == .malformed || packet.expected == .unknown,
                    "\(family): packet \(index) rejected: \(error)", sourceLocation: sourceLocation)
            }
        }
        #expect(
            errorTypes.count <= 1, "\(family): errors of \(errorTypes.count) types, not one",
            sourceLocation: sourceLocation)
        return report
    }

    private var family: DeviceFamily { descriptor.family }
}
