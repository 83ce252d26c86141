import DeviceRecording
import Quantities
import Recording
import Testing

/// `tlm record`'s settings over a base configuration, and how `-v` words them.
@Suite struct RecorderConfigurationOverridesTests {
    @Test func eachSettingGivenReplacesTheBasesAndTheOthersStay() {
        var base = RecorderConfiguration()
        base.zstdLevel = 9
        base.segmentDuration = .seconds(60)
        #expect(RecorderConfiguration.Overrides().applied(to: base) == base)
        var overrides = RecorderConfiguration.Overrides()
        overrides.chunkSize = 4096
        overrides.chunkAge = .milliseconds(250)
        overrides.durability = .batch
        var expected = base
        expected.chunkSize = 4096
        expected.chunkAge = .milliseconds(250)
        expected.durability = .batch
        #expect(overrides.applied(to: base) == expected)
        overrides.zstdLevel = 5
        overrides.segmentSize = 64 << 20
        overrides.segmentDuration = .seconds(10)
        expected.zstdLevel = 5
        expected.segmentSize = 64 << 20
        expected.segmentDuration = .seconds(10)
        #expect(overrides.applied(to: base) == expected)
    }

    @Test func aChunkSizeBeyondIntIsClampedAndRefused() {
        var overrides = RecorderConfiguration.Overrides()
        overrides.chunkSize = .max
        let configuration = overrides.applied()
        #expect(configuration.chunkSize == .max)
        #expect(throws: RecordingError.self) { try configuration.validate() }
    }

    @Test func theSummaryNamesEverySetting() {
        var configuration = RecorderConfiguration()
        #expect(
            configuration.summary
                == "chunks of 1048576 bytes or 1.0 seconds, zstd level 3, segments of 268435456 bytes, durability chunk"
        )
        configuration.segmentDuration = .seconds(600)
        configuration.durability = .none
        #expect(configuration.summary.hasSuffix("segments of 268435456 bytes or 600.0 seconds, durability none"))
    }
}
