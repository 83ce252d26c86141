import Testing

@testable import Devices

@Suite struct DiotDecoderFuzzTests {
    @Test func hundredThousandRandomValuesDecodeOrThrowByTheLengthRule() {
        var generator = SeededRandom(seed: 0x5EED)
        let decoder = DiotDecoder()
        let characteristics = (0xD000...0xD00A).map { CharacteristicUUID(short: UInt16($0)) }
        var counts = (records: 0, empty: 0, errors: 0)
        for _ in 0..<(100_000 * fuzzScale) {
            // Mostly short values, biased towards the interesting lengths 0…11.
            let length =
                Int.random(in: 0...3, using: &generator) == 0
                ? Int.random(in: 0...64, using: &generator) : Int.random(in: 0...11, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if length == 1, Bool.random(using: &generator) { bytes[0] = 0 }
            let characteristic = characteristics.randomElement(using: &generator)!
            let channel = DiotGATT.dataChannel(for: characteristic)
            do {
                let packet = try decoder.decode(bytes, from: characteristic)
                #expect(channel != nil && packet.channel == channel)
                switch packet {
                case .empty:
                    #expect(bytes == [0x00])
                    counts.empty += 1
                case .records(let records):
                    #expect(length > 0 && length % 5 == 0)
                    #expect(records.count == length / 5)
                    for record in records {
                        let base = record.index * 5
                        #expect(record.feature.rawValue == bytes[base])
                        #expect(record.rawBytes == Array(bytes[base + 1..<base + 5]))
                        #expect(record.value.raw == record.raw || record.feature.valueType == .bool)
                    }
                    counts.records += 1
                }
            } catch {
                #expect(error.length == length)
                #expect(error.characteristic == characteristic)
                #expect(error.channel == channel)
                if channel == nil {
                    #expect(error.code == .notADataChannel)
                } else {
                    #expect(!(length > 0 && length % 5 == 0) && bytes != [0x00])
                    let expected: DiotDecodeError.Code =
                        length == 0 ? .emptyValue : length == 1 ? .invalidSingleByte : .invalidLength
                    #expect(error.code == expected)
                }
                counts.errors += 1
            }
        }
        #expect(counts.records > 1_000)
        #expect(counts.empty > 1_000)
        #expect(counts.errors > 1_000)
    }
}
