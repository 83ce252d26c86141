import Testing

@testable import Devices

@Suite struct JacquardDecoderFuzzTests {
    /// 240 000 random and mutated packets (bit flips, truncation, extension,
    /// spliced fragments) through one decoder: nothing traps, every
    /// rejection is a typed error that names the characteristic and length,
    /// and the decoder keeps decoding valid packets afterwards.
    @Test func randomAndMutatedPacketsNeverTrap() throws {
        var generator = SeededRandom(seed: 0x00FA_CADE)
        var simulator = JacquardSimulator(seed: 99, configuration: .stress)
        var decoder = JacquardDecoder()
        var corpus: [(CharacteristicUUID, [UInt8])] = []
        for _ in 0..<2_000 {
            let notification = simulator.next()
            corpus.append((notification.characteristic, notification.bytes))
        }
        let characteristics =
            JacquardGATT.characteristics + [JacquardGATT.notify, JacquardGATT.notify, JacquardGATT.response]
        var counts = (values: 0, errors: 0)
        var codes = Set<JacquardDecodeError.Code>()
        for round in 0..<(240_000 * fuzzScale) {
            var characteristic: CharacteristicUUID
            var bytes: [UInt8]
            switch round % 4 {
            case 0:
                // Random bytes, with fragment-looking headers half the time.
                characteristic = characteristics.randomElement(using: &generator)!
                let length = Int.random(in: 0...70, using: &generator)
                bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if length > 1, Bool.random(using: &generator) {
                    bytes[0] = [0xC0, 0x80, 0x41, 0x01].randomElement(using: &generator)!
                    bytes[1] = UInt8(min(length - 2, 127))
                }
            default:
                (characteristic, bytes) = corpus.randomElement(using: &generator)!
                switch Int.random(in: 0...3, using: &generator) {
                case 0:
                    for _ in 0..<Int.random(in: 1...4, using: &generator) where !bytes.isEmpty {
                        let index = Int.random(in: 0..<bytes.count, using: &generator)
                        bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &generator)
                    }
                case 1:
                    bytes.removeLast(Int.random(in: 0...bytes.count, using: &generator))
                case 2:
                    for _ in 0..<Int.random(in: 1...20, using: &generator) {
                        bytes.append(UInt8.random(in: 0...255, using: &generator))
                    }
                default:
                    // Another packet's tail spliced on, possibly on another characteristic.
                    let other = corpus.randomElement(using: &generator)!.1
                    bytes += other.dropFirst(Int.random(in: 0...other.count, using: &generator))
                    if Bool.random(using: &generator) {
                        characteristic = characteristics.randomElement(using: &generator)!
                    }
                }
            }
            var emitted = 0
            do {
                try decoder.decode(bytes, from: characteristic) { _ in emitted += 1 }
                counts.values += emitted
            } catch {
                #expect(emitted == 0, "nothing is emitted for a rejected packet")
                #expect(error.characteristic == characteristic)
                #expect(error.length == bytes.count)
                #expect(!error.description.isEmpty)
                codes.insert(error.code)
                counts.errors += 1
            }
        }
        #expect(counts.values > 50_000)
        #expect(counts.errors > 50_000)
        #expect(codes.count >= 14, "many distinct codes: \(codes.map(\.description).sorted())")
        // Still decodes the spec's example.
        var values: [JacquardValue] = []
        try decoder.decode(
            [0xC0, 0x0B, 0x08, 0x08, 0x10, 0x05, 0xAA, 0x39, 0x04, 0x0A, 0x02, 0x08, 0x01], from: JacquardGATT.notify
        ) {
            values.append($0)
        }
        #expect(values == [.gesture(JacquardGestureEvent(gesture: .doubleTap))])
    }

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
