import Testing

@testable import Devices

/// Jacquard's protobuf reader, fuzzed directly (the packet fuzzing of every
/// family is the conformance harness in `FamiliesTests`).
@Suite struct JacquardProtobufFuzzTests {
    /// Random protobuf bodies inside well-formed single fragments, to reach
    /// the wire-format reader rather than the fragment rules.
    @Test func randomProtobufBodiesNeverTrap() {
        var generator = SeededRandom(seed: 0xB0D1E5)
        var decoder = JacquardDecoder()
        var outcomes = (ok: 0, errors: 0)
        for _ in 0..<60_000 {
            let length = Int.random(in: 0...61, using: &generator)
            var body = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Bias towards plausible tags: small field numbers and extension numbers.
            if length > 2, Bool.random(using: &generator) {
                body[0] = [0x08, 0x10, 0x18, 0x0A, 0x0D, 0x09][Int.random(in: 0...5, using: &generator)]
            }
            if length > 4, Bool.random(using: &generator) {
                body.replaceSubrange(
                    0..<2,
                    with: [[0xAA, 0x39], [0xCA, 0x07], [0xEA, 0x06], [0xB2, 0x06], [0xAA, 0x07]].randomElement(
                        using: &generator)!)
            }
            let bytes = [0xC0, UInt8(length)] + body
            let characteristic = Bool.random(using: &generator) ? JacquardGATT.notify : JacquardGATT.response
            do {
                try decoder.decode(bytes, from: characteristic) { _ in }
                outcomes.ok += 1
            } catch {
                #expect(error.characteristic == characteristic)
                outcomes.errors += 1
            }
        }
        #expect(outcomes.ok > 1_000)
        #expect(outcomes.errors > 1_000)
    }
}
