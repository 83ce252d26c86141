import Devices
import Families
import Pipeline
import Session
import Testing

/// `tlm record`'s devices: simulated families checked, live devices paired
/// with the families given or told by their advertisements.
@Suite struct DeviceRequestTests {
    @Test func oneFamilyForAllOrOnePerDevice() throws {
        #expect(
            try DeviceRequest.live(["a", "b"], families: [.diot])
                == .liveDevices([.init(query: "a", family: .diot), .init(query: "b", family: .diot)]))
        #expect(
            try DeviceRequest.live(["a", "b"], families: [.diot, .jacquard])
                == .liveDevices([.init(query: "a", family: .diot), .init(query: "b", family: .jacquard)]))
        #expect(try DeviceRequest.live(["a", "b"]).families == [nil, nil])
        #expect(
            throws: DeviceRequestError("give one --family for all devices or one per --device (3)")
        ) { try DeviceRequest.live(["a", "b", "c"], families: [.diot, .jacquard]) }
        #expect(throws: DeviceRequestError("--device needs an address or a name")) {
            try DeviceRequest.live(["a", ""])
        }
    }

    @Test func simulatedFamiliesMustHaveASimulatorAndNoneMeansEvery() throws {
        #expect(try DeviceRequest.simulated([]) == .simulatedFamilies(FamilyRegistry.builtIn.simulatable))
        #expect(try DeviceRequest.simulated([.fjorden]) == .simulatedFamilies([.fjorden]))
        let registry = FamilyRegistry(
            FamilyRegistry.builtIn.families.filter { $0 != .obvious }.compactMap { FamilyRegistry.builtIn[$0] })
        let names = registry.simulatable.map(\.rawValue).joined(separator: ", ")
        #expect(throws: DeviceRequestError("the obvious simulator is not available yet; choose from \(names)")) {
            try DeviceRequest.simulated([.obvious], registry: registry)
        }
    }

    @Test func livePairingAsksTheAdvertisementOnlyForDevicesWithoutAFamily() async throws {
        let request = try DeviceRequest.live(["C0:FF:EE:00:00:01", "Jacquard-A316", "Grip"], families: [])
        var asked: [String] = []
        let pipeline = try await request.pipeline { query in
            asked.append(query)
            return query == "Grip" ? .fjorden : .jacquard
        }
        #expect(asked == ["C0:FF:EE:00:00:01", "Jacquard-A316", "Grip"])
        #expect(pipeline.devices.map(\.family) == [.jacquard, .jacquard, .fjorden])
        #expect(pipeline.devices.map(\.name) == ["jacquard1", "jacquard2", "fjorden3"])

        let given = try DeviceRequest.live(["C0:FF:EE:00:00:01"], families: [.diot])
        let live = try await given.pipeline { query in
            Issue.record("asked for \(query)")
            return nil
        }
        #expect(live.devices.map(\.family) == [.diot])

        await #expect(
            throws: DeviceRequestError("cannot tell the family of Nameless from its advertisement; pass --family")
        ) { try await DeviceRequest.live(["Nameless"]).pipeline { _ in nil } }
    }

    @Test func simulatedDevicesMakeASimulatedPipeline() async throws {
        let pipeline = try await DeviceRequest.simulated([.diot, .jacquard]).pipeline(seed: 7, scenario: .faults)
        #expect(pipeline.devices.map(\.family) == [.diot, .jacquard])
        #expect(pipeline.devices.allSatisfy { $0.source == .simulated(seed: 7, scenario: .faults, rate: nil) })
    }
}
