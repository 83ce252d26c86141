import TestSupport
import Testing

@testable import Devices

@Suite struct DiotAllCharacteristicsFuzzTests {
    /// Random values on every DIoT characteristic (and a few that are not):
    /// each decodes or throws a typed error consistent with its layout; nothing traps.
    @Test func hundredAndTwentyThousandRandomValuesAcrossEveryCharacteristic() {
        var generator = SeededRandom(seed: 0xD107)
        let decoder = DiotDecoder()
        let shorts: [UInt16] =
            Array(0xD001...0xD009) + [0xC001, 0xC002, 0xC003, 0x2A19, 0x2A29, 0x2A24, 0x2A27, 0x2A26, 0x2A28]
            + [0xFFD1, 0xFF71, 0xD000, 0xC000, 0x2A25]
        let characteristics = shorts.map(CharacteristicUUID.init(short:))
        var decoded = 0
        var codes: [String: Int] = [:]
        for _ in 0..<(120_000 * fuzzScale) {
            let length =
                Int.random(in: 0...3, using: &generator) == 0
                ? Int.random(in: 0...40, using: &generator) : Int.random(in: 0...11, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Bias towards valid content so every success path runs often.
            if Bool.random(using: &generator) {
                for index in bytes.indices {
                    let channelLike = index % 5 == 0 || index % 2 == 0
                    bytes[index] = channelLike ? UInt8.random(in: 1...9, using: &generator) : bytes[index] & 0x7F
                }
            }
            let characteristic = characteristics.randomElement(using: &generator)!
            var events: [DiotEvent] = []
            do {
                try decoder.decodeEvents(bytes, from: characteristic) { events.append($0) }
                decoded += 1
                #expect(!events.isEmpty)
                #expect(events.allSatisfy { $0.characteristic == characteristic })
            } catch {
                #expect(events.isEmpty, "nothing emitted before a throw")
                #expect(error.length == length)
                #expect(error.characteristic == characteristic)
                #expect(!error.message.isEmpty)
                codes[error.code.description, default: 0] += 1
            }
        }
        #expect(decoded > 20_000)
        for code in [
            "emptyValue", "invalidSingleByte", "invalidLength", "unknownCharacteristic", "invalidChannel",
            "batteryOutOfRange", "invalidUTF8", "invalidASCII",
        ] {
            #expect(codes[code, default: 0] > 100, "\(code): \(codes[code, default: 0])")
        }
    }
}
