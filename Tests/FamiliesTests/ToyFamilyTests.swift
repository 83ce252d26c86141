import Devices
import Families
import Foundation
import Pipeline
import ROS2
import Recording
import RecordingQueries
import TestSupport
import Testing

/// A family added from outside the package's family list — the toy
/// thermometer of `Thermometer/`, registered with one line — is recognised,
/// simulated, recorded with derived streams, decoded, aggregated and replayed
/// exactly like a built-in one.
@Suite struct ToyFamilyTests {
    /// The one line that adds the family.
    static let families = FamilyRegistry.builtIn.adding(.thermometer)

    static let pipelineText = """
        name: toy
        devices:
          - name: kitchen
            family: thermometer
            source:
              simulated: {seed: 7}
        derived:
          - name: kitchen_fahrenheit
            from: /thermometer/*/temperature
            operators:
              - map: {from: celsius, to: fahrenheit}
        """

    /// The simulator a pipeline's `simulated: {seed: …}` gets (the registry
    /// mixes the family's position into the seed).
    static func simulator(seed: UInt64, faults: Bool = false) throws -> ThermometerSimulator {
        try #require(families.simulator(of: .thermometer, seed: seed, faults: faults) as? ThermometerSimulator)
    }

    /// What the simulator sends in `seconds`: the expected readings (`nil`
    /// for a malformed packet), in order.
    static func expected(seed: UInt64, seconds: Int, faults: Bool = false) throws -> [ThermometerReading?] {
        var simulator = try simulator(seed: seed, faults: faults)
        return (0..<(seconds * 10)).map { _ in simulator.next().expected }
    }

    @Test func theRegistryKnowsTheToyFamilyBesideTheBuiltInOnes() throws {
        let families = Self.families
        #expect(families.families == [.diot, .comodule, .jacquard, .fjorden, .obvious, .thermometer])
        #expect(FamilyRegistry.builtIn[.thermometer] == nil)
        #expect(families.descriptor(named: "Thermometer")?.family == .thermometer)
        #expect(families.simulatable.contains(.thermometer))
        #expect(
            families.family(manufacturerData: [:], serviceUUIDs: [ThermometerGATT.service.description]) == .thermometer)
        #expect(families.serviceUUIDs(for: [.thermometer]) == [ThermometerGATT.service.description])
        // Adding a family changes no other family's simulated values.
        let diot = try #require(families.simulator(of: .diot, seed: 3))
        let builtInDiot = try #require(FamilyRegistry.builtIn.simulator(of: .diot, seed: 3))
        #expect(diot.identifier == builtInDiot.identifier)
    }

    @Test func itsDecoderWorksThroughTheDescriptor() throws {
        var decoder = try #require(Self.families[.thermometer]).makeDecoder()
        var values: [String] = []
        let encoder = JSONEncoder()
        try decoder.decode(
            RawNotification(
                characteristic: ThermometerGATT.temperature, bytes: [0x34, 0x08],
                receiveTime: 0)
        ) { value in
            values.append(String(decoding: try! encoder.encode(value), as: UTF8.self))
        }
        #expect(values == [#"{"celsius":21}"#])
        #expect(throws: FamilyDecodingError.self) {
            try decoder.decode(
                RawNotification(
                    characteristic: ThermometerGATT.temperature, bytes: [1, 2, 3],
                    receiveTime: 0)
            ) { _ in }
        }
        do {
            try decoder.decode(RawNotification(characteristic: ThermometerGATT.temperature, bytes: [1], receiveTime: 0))
            { _ in }
            Issue.record("a one-byte temperature decoded")
        } catch {
            #expect(error.description == "a temperature is 2 bytes, not 1")
        }
    }

    @Test func aPipelineSimulatesRecordsDerivesAndAggregatesIt() throws {
        let pipeline = try Pipeline(yaml: Self.pipelineText, families: Self.families)
        // Without the family in the registry, the pipeline is refused with the known families named.
        #expect(throws: PipelineError.self) { try Pipeline(yaml: Self.pipelineText) }
        let directory = makeTemporaryDirectory() + "/toy"
        let start = PipelineSimulation.defaultStartTime
        let summary = try PipelineSimulation.record(pipeline, to: directory, duration: .seconds(10), startTime: start)
        let expected = try Self.expected(seed: 7, seconds: 10).compactMap { $0?.celsius }
        #expect(summary.notificationCount == 100)
        #expect(summary.decodedCount == 100)
        #expect(summary.derivedCount == 100)

        let info = try RecordingInfo.load(from: directory)
        let device = try #require(info.devices.first)
        #expect(device.family == "thermometer")
        let identifier = try Self.simulator(seed: 7).identifier
        #expect(device.identifier == identifier)
        let topic = "/thermometer/\(identifier)/temperature"
        #expect(info.streams.map(\.topic).contains(topic))

        let reader = try RecordingReader(directory: directory)
        let recorded: [Double] = try reader.typedMessages(topics: [topic]).map { $0["value"]?.number ?? .nan }
        #expect(recorded == expected)
        let fahrenheit: [Double] = try reader.typedMessages(topics: ["/derived/kitchen_fahrenheit"])
            .map { $0["value"]?.number ?? .nan }
        #expect(fahrenheit.count == expected.count)
        for (f, c) in zip(fahrenheit, expected) {
            let converted: Double = c * 9 / 5 + 32
            #expect(abs(f - converted) < 1e-9)
        }

        // The index keeps statistics of the toy family's numeric stream, by
        // the family-agnostic schema rule: one bucket over everything.
        let (buckets, _) = try reader.aggregate(
            topic: topic, from: start, to: start + 10_000_000_000, every: .seconds(10))
        let bucket = try #require(buckets.first)
        #expect(bucket.count == expected.count)
        #expect(bucket.minimum == expected.min())
        #expect(bucket.maximum == expected.max())
    }

    @Test func replayDecodesItsRawStreamsAgain() async throws {
        let pipeline = try Pipeline(yaml: Self.pipelineText, families: Self.families)
        let directory = makeTemporaryDirectory() + "/toy"
        _ = try PipelineSimulation.record(pipeline, to: directory, duration: .seconds(5))
        let identifier = try Self.simulator(seed: 7).identifier
        let replay = try RecordingReplay(directory: directory)
        var replayed: [ThermometerReading] = []
        for try await (_, value) in try replay.values(
            of: identifier, decoder: ThermometerDecoder(),
            clock: ContinuousClock(), rate: 1_000_000)
        {
            replayed.append(value)
        }
        let expected = try Self.expected(seed: 7, seconds: 5).compactMap { $0 }
        #expect(replayed == expected)
    }

    @Test func itsMalformedPacketsAreLossRecords() throws {
        let faulty = Self.pipelineText.replacingOccurrences(of: "{seed: 7}", with: "{seed: 7, scenario: faults}")
        let pipeline = try Pipeline(yaml: faulty, families: Self.families)
        let directory = makeTemporaryDirectory() + "/toy"
        let summary = try PipelineSimulation.record(pipeline, to: directory, duration: .seconds(10))
        let expected = try Self.expected(seed: 7, seconds: 10, faults: true)
        #expect(summary.notificationCount == expected.count)
        #expect(summary.decodedCount == expected.compactMap { $0 }.count)
        let info = try RecordingInfo.load(from: directory)
        #expect(info.lossCount == expected.filter { $0 == nil }.count)
        #expect(info.losses.allSatisfy { $0.reason.contains("malformed packet") })
    }
}
