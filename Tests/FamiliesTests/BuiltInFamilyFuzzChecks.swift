import Devices
import Families
import FamiliesTesting
import Testing

/// What the conformance harness cannot say about a built-in family's fuzzed
/// packets, said per packet: the wire format's own rules (DIoT's length
/// rule, Comodule's header), exact re-encoding where the family has an
/// encoder (Fjorden, Obvious), and Jacquard's variety of errors. Other
/// families (the toy thermometer) get the harness alone.
struct BuiltInFamilyFuzzChecks {
    let family: DeviceFamily
    private var jacquardCodes: Set<JacquardDecodeError.Code> = []

    init(_ family: DeviceFamily) {
        self.family = family
    }

    mutating func inspect(_ notification: RawNotification, _ outcome: FamilyFuzzOutcome) {
        let (bytes, characteristic) = (notification.bytes, notification.characteristic)
        switch (family, outcome) {
        case (.diot, .decoded(let values)):
            guard DiotGATT.dataChannel(for: characteristic) != nil else { return }
            if bytes == [0x00] {
                #expect(values.count == 1)
                return
            }
            #expect(!bytes.isEmpty && bytes.count % 5 == 0 && values.count == bytes.count / 5)
            for value in values {
                guard case .record(let record) = value as! DiotEvent else { continue }
                #expect(record.feature.rawValue == bytes[record.index * 5])
                #expect(record.rawBytes == Array(bytes[record.index * 5 + 1..<record.index * 5 + 5]))
            }
        case (.diot, .rejected(let error)):
            let error = error.underlying as! DiotDecodeError
            #expect(error.length == bytes.count && error.characteristic == characteristic)
            guard DiotGATT.dataChannel(for: characteristic) != nil else { return }
            let expected: DiotDecodeError.Code =
                bytes.isEmpty ? .emptyValue : bytes.count == 1 ? .invalidSingleByte : .invalidLength
            #expect(error.code == expected)
        case (.comodule, .decoded(let values)):
            let frame = values[0] as! ComoduleFrame
            #expect(characteristic == ComoduleGATT.propertyStream)
            #expect(bytes.count == 4 + Int(bytes[3] & 0x0F) && bytes[3] & 0xE0 == 0)
            #expect(frame.index == UInt16(bytes[1]) | UInt16(bytes[2]) << 8)
            #expect(ComodulePropertyTable.default[frame.index]?.identifier == frame.identifier)
            #expect((frame.kind == .error) == (frame.value == nil))
        case (.comodule, .rejected(let error)):
            let error = error.underlying as! ComoduleDecodeError
            #expect(error.length == bytes.count && error.characteristic == characteristic)
            if characteristic != ComoduleGATT.propertyStream { #expect(error.code == .unknownCharacteristic) }
        case (.fjorden, .decoded(let values)):
            let value = values[0] as! FjordenValue
            #expect(value.characteristic == characteristic)
            let encoded = FjordenEncoder.encode(
                value, explicitRepeatCount: bytes.count == 2 && characteristic == FjordenGATT.event)
            #expect(encoded.bytes == bytes, "decoding is exact: re-encoding gives the bytes")
        case (.fjorden, .rejected(let error)):
            let error = error.underlying as! FjordenDecodeError
            #expect(error.length == bytes.count && error.characteristic == characteristic)
        case (.obvious, .decoded(let values)):
            #expect(characteristic == ObviousGATT.data)
            #expect(ObviousEncoder.encode(values[0] as! ObviousMessage) == bytes, "re-encoding gives the bytes")
        case (.obvious, .rejected(let error)):
            let error = error.underlying as! ObviousDecodeError
            #expect(error.length == bytes.count && error.characteristic == characteristic)
            if characteristic != ObviousGATT.data { #expect(error.code == .unknownCharacteristic) }
        case (.jacquard, .rejected(let error)):
            let error = error.underlying as! JacquardDecodeError
            #expect(error.length == bytes.count && error.characteristic == characteristic)
            jacquardCodes.insert(error.code)
        default:
            break
        }
    }

    /// Checks over all the packets.
    func finish() {
        if family == .jacquard {
            #expect(jacquardCodes.count >= 14, "many distinct codes: \(jacquardCodes.map(\.description).sorted())")
        }
    }
}
