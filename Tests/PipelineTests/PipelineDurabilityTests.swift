import Pipeline
import Recording
import Testing

/// The `recording:` section's `durability` key.
@Suite struct PipelineDurabilityTests {
    static let head = """
        name: test
        devices:
          - family: diot
            source: {simulated: {seed: 1}}

        """

    @Test(arguments: Durability.allCases)
    func eachLevelIsRead(durability: Durability) throws {
        let pipeline = try Pipeline(
            yaml: Self.head + "recording:\n  durability: \(durability.rawValue)\n", file: "p.yaml")
        #expect(pipeline.recorderConfiguration().durability == durability)
    }

    @Test func theDefaultIsChunk() throws {
        let pipeline = try Pipeline(yaml: Self.head + "recording: {zstdLevel: 5}\n", file: "p.yaml")
        #expect(pipeline.recorderConfiguration().durability == .chunk)
        #expect(try Pipeline(yaml: Self.head, file: "p.yaml").recorderConfiguration().durability == .chunk)
    }

    @Test func anUnknownLevelIsAnErrorAtItsPosition() {
        do {
            _ = try Pipeline(yaml: Self.head + "recording:\n  durability: always\n", file: "p.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(
                error.description
                    == "p.yaml:6:15: unknown durability 'always' (expected one of: none, chunk, segment, batch)")
        }
    }

    @Test func anEmptyLevelIsAnError() {
        do {
            _ = try Pipeline(yaml: Self.head + "recording:\n  durability:\n", file: "p.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .wrongType)
            #expect(error.description.hasPrefix("p.yaml:6:") && error.description.contains("durability: expected text"))
        }
    }
}
