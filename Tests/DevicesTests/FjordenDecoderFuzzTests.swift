import Testing

@testable import Devices

@Suite struct FjordenDecoderFuzzTests {
    @Test func hundredThousandRandomAndMutatedPacketsNeverTrapAndFailTyped() {
        var generator = SeededRandom(seed: 0xF10D)
        var simulator = FjordenSimulator(seed: 1, configuration: .clean)
        let decoder = FjordenDecoder()
        let characteristics = [
            FjordenGATT.event, FjordenGATT.event, FjordenGATT.batteryLevel, CharacteristicUUID(short: 0x2A29),
            CharacteristicUUID(short: 0x2A26), CharacteristicUUID(short: 0x2A37), FjordenGATT.service,
        ]
        var counts = (decoded: 0, errors: 0)
        for round in 0..<(100_000 * fuzzScale) {
            var bytes: [UInt8]
            var characteristic: CharacteristicUUID
            if round % 2 == 0 {
                let length =
                    Int.random(in: 0...4, using: &generator) == 0
                    ? Int.random(in: 0...64, using: &generator) : Int.random(in: 0...3, using: &generator)
                bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                characteristic = characteristics.randomElement(using: &generator)!
            } else {
                let notification = simulator.next()
                bytes = notification.bytes
                characteristic =
                    Int.random(in: 0...9, using: &generator) == 0
                    ? characteristics.randomElement(using: &generator)! : notification.characteristic
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
            do {
                let value = try decoder.decode(bytes, from: characteristic)
                #expect(value.characteristic == characteristic)
                let encoded = FjordenEncoder.encode(
                    value,
                    explicitRepeatCount: bytes.count == 2 && characteristic == FjordenGATT.event
                )
                #expect(encoded.bytes == bytes, "decoding is exact: re-encoding gives the bytes")
                counts.decoded += 1
            } catch {
                #expect(error.length == bytes.count)
                #expect(error.characteristic == characteristic)
                #expect(!error.message.isEmpty)
                counts.errors += 1
            }
        }
        #expect(counts.decoded > 10_000)
        #expect(counts.errors > 10_000)
    }
}
