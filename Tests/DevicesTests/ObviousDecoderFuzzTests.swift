import Testing

@testable import Devices

@Suite struct ObviousDecoderFuzzTests {
    @Test func hundredThousandRandomAndMutatedPacketsNeverTrapAndFailTyped() {
        var generator = SeededRandom(seed: 0x0B71)
        var simulator = ObviousSimulator(seed: 1, configuration: .clean)
        let decoder = ObviousDecoder()
        let characteristics = [
            ObviousGATT.data, ObviousGATT.data, ObviousGATT.data, ObviousGATT.service,
            CharacteristicUUID(short: 0x2A19),
        ]
        var counts = (decoded: 0, errors: 0)
        for round in 0..<(100_000 * fuzzScale) {
            var bytes: [UInt8]
            if round % 2 == 0 {
                let length =
                    Int.random(in: 0...3, using: &generator) == 0
                    ? Int.random(in: 0...40, using: &generator) : Int.random(in: 0...10, using: &generator)
                bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if !bytes.isEmpty, Bool.random(using: &generator) {
                    bytes[0] = UInt8.random(in: 0...5, using: &generator)
                }
            } else {
                bytes = simulator.next().bytes
                for _ in 0...Int.random(in: 0...2, using: &generator) {
                    switch Int.random(in: 0...3, using: &generator) {
                    case 0 where !bytes.isEmpty:
                        bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(
                            in: 1...255,
                            using: &generator
                        )
                    case 1 where !bytes.isEmpty: bytes.removeLast(Int.random(in: 1...bytes.count, using: &generator))
                    case 2: bytes.append(UInt8.random(in: 0...255, using: &generator))
                    default: break
                    }
                }
            }
            let characteristic = characteristics.randomElement(using: &generator)!
            do {
                let message = try decoder.decode(bytes, from: characteristic)
                #expect(characteristic == ObviousGATT.data)
                #expect(ObviousEncoder.encode(message) == bytes, "decoding is exact: re-encoding gives the bytes")
                counts.decoded += 1
            } catch {
                #expect(error.length == bytes.count)
                #expect(error.characteristic == characteristic)
                #expect(!error.message.isEmpty)
                if characteristic != ObviousGATT.data { #expect(error.code == .unknownCharacteristic) }
                counts.errors += 1
            }
        }
        #expect(counts.decoded > 3_000)
        #expect(counts.errors > 10_000)
    }
}
