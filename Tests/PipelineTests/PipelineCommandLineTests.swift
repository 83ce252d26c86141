import Devices
import Families
import Pipeline
import ROS2
import Recording
import Testing

/// The pipelines `tlm record` builds from its arguments: simulated devices,
/// live devices by address or name, and the streams `--topics` and
/// `--exclude` select.
@Suite struct PipelineCommandLineTests {
    @Test func aSimulatedPipelineHasOneDevicePerFamilyNamedAfterIt() throws {
        let pipeline = try Pipeline.simulated(families: [.diot, .jacquard], seed: 7, scenario: .faults)
        #expect(pipeline.name == "simulate")
        #expect(pipeline.devices.map(\.name) == ["diot", "jacquard"])
        #expect(pipeline.devices.map(\.family) == [.diot, .jacquard])
        #expect(pipeline.devices.allSatisfy { $0.source == .simulated(seed: 7, scenario: .faults, rate: nil) })
        #expect(pipeline.derived.isEmpty && pipeline.record == nil)
        // No family, or one given twice: the pipeline's own errors.
        #expect(throws: PipelineError.self) { try Pipeline.simulated(families: [], seed: 1, scenario: .clean) }
        #expect(throws: PipelineError.self) {
            try Pipeline.simulated(families: [.diot, .diot], seed: 1, scenario: .clean)
        }
    }

    @Test(arguments: [
        ("C0:FF:EE:00:00:01", true), ("C0_FF_EE_00_00_01", true), ("DIoT-9F3A", false),
        ("Jacquard-A316", false), ("C0:FF:EE:00:01", false), ("a:b:c:d:e:f", true), ("", false),
    ])
    func aQueryOfSixGroupsIsAnAddress(query: String, isAddress: Bool) {
        #expect(Pipeline.isDeviceAddress(query) == isAddress)
    }

    @Test func aLivePipelineNamesItsDevicesByFamilyAndPlace() throws {
        let pipeline = try Pipeline.live([("C0:FF:EE:00:00:01", .diot), ("Jacquard-A316", .jacquard)])
        #expect(pipeline.name == "live")
        #expect(pipeline.devices.map(\.name) == ["diot1", "jacquard2"])
        #expect(pipeline.devices[0].source == .live(address: "C0:FF:EE:00:00:01", name: nil))
        #expect(pipeline.devices[1].source == .live(address: nil, name: "Jacquard-A316"))
        #expect(pipeline.devices.allSatisfy { $0.location.file == "<command line>" })
        #expect(throws: PipelineError.self) { try Pipeline.live([]) }
    }

    @Test func topicsReplaceTheRecordListAndExcludeAddsToIt() throws {
        let base = try Pipeline.simulated(families: [.diot, .comodule], seed: 1, scenario: .clean)
        let selected = base.selecting(
            topics: [TopicPattern("/diot/**")], excluding: [TopicPattern("**/acc_y"), TopicPattern("**/gyro_?")])
        #expect(selected.records(topic: "/diot/d_1/acc_x"))
        #expect(!selected.records(topic: "/diot/d_1/acc_y"))
        #expect(!selected.records(topic: "/diot/d_1/gyro_z"))
        #expect(!selected.records(topic: "/comodule/c_1/speed"))
        // A glob also selects the topics below a level it matches.
        let level = base.selecting(topics: [TopicPattern("/diot/*")], excluding: [TopicPattern("/comodule/*")])
        #expect(level.records(topic: "/diot/d_1/acc_x"))
        #expect(!level.records(topic: "/comodule/c_1/speed"))
        #expect(!level.records(topic: "/jacquard/j_1/gesture"))
        // Without --topics the record list stays; --exclude adds to the exclusions.
        let kept = base.selecting(topics: [], excluding: [TopicPattern("**/speed")])
        #expect(kept.record == nil && kept.records(topic: "/diot/d_1/acc_x"))
        #expect(!kept.records(topic: "/comodule/c_1/speed"))
    }
}
