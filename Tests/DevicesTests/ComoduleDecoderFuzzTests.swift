import Testing

@testable import Devices

@Suite struct ComoduleDecoderFuzzTests {
    @Test func hundredThousandRandomAndMutatedPacketsNeverTrapAndFailTyped() {
        var generator = SeededRandom(seed: 0xC0DE)
        var simulator = ComoduleSimulator(seed: 1, configuration: .clean)
        let decoder = ComoduleDecoder()
        let characteristics = [
            ComoduleGATT.propertyStream, ComoduleGATT.propertyStream, ComoduleGATT.propertyStream, ComoduleGATT.service,
        ]
        var counts = (decoded: 0, errors: 0)
        for round in 0..<(100_000 * fuzzScale) {
            var bytes: [UInt8]
            if round % 2 == 0 {
                let length =
                    Int.random(in: 0...4, using: &generator) == 0
                    ? Int.random(in: 0...40, using: &generator) : Int.random(in: 4...12, using: &generator)
                bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if bytes.count >= 4, Int.random(in: 0...2, using: &generator) > 0 {
                    // Make the header plausible so the value rules are exercised too.
                    bytes[0] = UInt8.random(in: 1...3, using: &generator)
                    bytes[1] = [1, 2, 3, 4, 5, 6, 7, 16].randomElement(using: &generator)!
                    bytes[2] = 0
                    bytes[3] &= 0x1F
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
                let frame = try decoder.decode(bytes, from: characteristic)
                #expect(characteristic == ComoduleGATT.propertyStream)
                #expect(bytes.count == 4 + Int(bytes[3] & 0x0F) && bytes[3] & 0xE0 == 0)
                #expect(frame.index == UInt16(bytes[1]) | UInt16(bytes[2]) << 8)
                #expect(ComodulePropertyTable.default[frame.index]?.identifier == frame.identifier)
                #expect((frame.kind == .error) == (frame.value == nil))
                counts.decoded += 1
            } catch {
                #expect(error.length == bytes.count)
                #expect(error.characteristic == characteristic)
                #expect(!error.message.isEmpty)
                if characteristic != ComoduleGATT.propertyStream { #expect(error.code == .unknownCharacteristic) }
                counts.errors += 1
            }
        }
        #expect(counts.decoded > 3_000)
        #expect(counts.errors > 10_000)
    }

    @Test func mutatedTableFilesNeverTrapAndFailTyped() {
        var generator = SeededRandom(seed: 0x7AB1E)
        let good = ComodulePropertyTable.default.json()
        var loaded = 0
        for _ in 0..<3_000 {
            var bytes = good
            for _ in 0...Int.random(in: 0...3, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0...2, using: &generator) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: position)
                default:
                    bytes.insert(Array("{}[],:\"0-e.tfn \n\\".utf8).randomElement(using: &generator)!, at: position)
                }
            }
            do {
                let table = try ComodulePropertyTable(json: bytes)
                #expect(table.properties.count <= 8)
                loaded += 1
            } catch {
                #expect(!error.message.isEmpty)
                if error.code == .invalidJSON {
                    #expect(error.line != nil, "\(error) \(String(decoding: bytes, as: UTF8.self).debugDescription)")
                }
            }
        }
        #expect(loaded > 0)
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        #expect(throws: ComodulePropertyTableError.self) { try ComodulePropertyTable(json: deep) }
    }
}
