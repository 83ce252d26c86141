import Foundation
import Testing

@testable import DBus

/// Byte arrays (`ay`) as one ``DBusValue/bytes(_:)`` value: sent and
/// received in one piece, equal to the same bytes as an array of byte
/// values, and malformed ones an error, never a trap.
@Suite struct ByteArrayTests {
    /// 0, 1 and 512 bytes, every byte value in the long one.
    static let values: [[UInt8]] = [[], [0x7F], (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }]

    /// A BlueZ `PropertiesChanged(s, a{sv}, as)` carrying `value` as `Value`.
    static func propertiesChanged(_ value: DBusValue) throws -> Message {
        let message = try Message.signal(
            path: "/org/bluez/hci0/dev_F0_00_00_00_00_01/service0010/char0011",
            interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
        try message.append([
            .string("org.bluez.GattCharacteristic1"), .vardict(["Value": value]), .strings([]),
        ])
        return message
    }

    @Test(arguments: values)
    func aByteArrayIsReadAsOneBytesValue(_ bytes: [UInt8]) throws {
        let message = try Self.propertiesChanged(.bytes(bytes))
        #expect(message.signature == "sa{sv}as")
        let arguments = try message.arguments()
        #expect(arguments.count == 3)
        let value = try #require(arguments[1].vardict?["Value"])
        guard case .bytes(let received) = value else {
            Issue.record("Value came back as \(value), not as .bytes")
            return
        }
        #expect(received == bytes)
        #expect(value.bytes == bytes)
        #expect(value.signature == "ay")
    }

    @Test(arguments: values)
    func anArrayOfByteValuesIsSentAsTheSameBytes(_ bytes: [UInt8]) throws {
        let asElements = DBusValue.array(elementSignature: "y", bytes.map { .byte($0) })
        let message = try Self.propertiesChanged(asElements)
        let back = try #require(try message.arguments()[1].vardict?["Value"])
        #expect(back == .bytes(bytes))
        #expect(back == asElements)
        #expect(try Self.propertiesChanged(.bytes(bytes)).marshal() == message.marshal())
    }

    @Test(arguments: values)
    func bothFormsAreEqualAndHashAlike(_ bytes: [UInt8]) {
        let compact = DBusValue.bytes(bytes)
        let elements = DBusValue.array(elementSignature: "y", bytes.map { .byte($0) })
        #expect(compact == elements)
        #expect(elements == compact)
        #expect(compact.hashValue == elements.hashValue)
        #expect(Set([compact, elements, .variant(compact)]).count == 2)
        #expect(compact.array == bytes.map { .byte($0) })
        #expect(elements.bytes == bytes)
        #expect(compact.signature == "ay")
        #expect(compact != .bytes(bytes + [0]))
        #expect(compact != .array(elementSignature: "q", bytes.map { .uint16(UInt16($0)) }))
    }

    @Test func anArrayOfYWithANonByteElementIsNotBytes() {
        let mixed = DBusValue.array(elementSignature: "y", [.byte(1), .int32(2)])
        #expect(mixed.bytes == nil)
        #expect(mixed != .bytes([1, 2]))
        #expect(DBusValue.bytes([1, 2]) != mixed)
        #expect(mixed.description == "[1, 2]")
    }

    @Test func bytesAreShownInHex() {
        #expect(DBusValue.bytes([]).description == "0x")
        #expect(DBusValue.bytes([0x00, 0x4B]).description == "0x004b")
        #expect(DBusValue.vardict(["Value": .bytes([0x0A])]).description == "{\"Value\": <0x0a>}")
        let long = DBusValue.bytes(Array(repeating: 0xAB, count: 40)).description
        #expect(long == "0x" + String(repeating: "ab", count: 32) + "… (40 bytes)")
    }

    @Test func aByteArrayLongerThanDBusAllowsIsRefused() throws {
        let message = try Message.signal(path: "/test", interface: "org.example.Test", member: "Big")
        let tooLong = [UInt8](repeating: 1, count: Validation.maximumArrayLength + 1)
        #expect {
            try message.append([.bytes(tooLong)])
        } throws: { error in
            guard let error = error as? DBusError else { return false }
            return error.code == .invalidArgument && error.message.contains("longer than D-Bus allows")
        }
        // Nothing was appended: the message is still empty.
        #expect(message.signature == "")
        #expect(try message.arguments() == [])
    }

    /// The wire form of a signal whose only argument is `ay` [1, 2, 3], with
    /// the offset of the array's length field.
    static func wireFormWithArrayLength() throws -> (bytes: [UInt8], lengthOffset: Int) {
        let message = try Message.signal(path: "/test", interface: "org.example.Test", member: "Bytes")
        try message.append([.bytes([1, 2, 3])])
        let bytes = try message.marshal()
        #expect(bytes.first == UInt8(ascii: "l"))  // little-endian, so the fields below read as such
        // Fixed header (12 bytes), header fields array length (4), fields, padding to 8: the body.
        let fieldsLength = Int(bytes[12]) | Int(bytes[13]) << 8 | Int(bytes[14]) << 16 | Int(bytes[15]) << 24
        let bodyStart = (16 + fieldsLength + 7) / 8 * 8
        #expect(Array(bytes[bodyStart..<bodyStart + 7]) == [3, 0, 0, 0, 1, 2, 3])
        return (bytes, bodyStart)
    }

    @Test func theWireFormReadsBack() throws {
        let (bytes, _) = try Self.wireFormWithArrayLength()
        let message = try Message.demarshal(bytes)
        #expect(try message.arguments() == [.bytes([1, 2, 3])])
        #expect(message.member == "Bytes")
    }

    @Test func aByteArrayLongerThanItsMessageIsAnError() throws {
        var (bytes, lengthOffset) = try Self.wireFormWithArrayLength()
        bytes[lengthOffset] = 0xFF  // 255 bytes claimed, 3 present
        expectMalformed(bytes)
        bytes[lengthOffset + 3] = 0x10  // beyond the 64 MiB limit
        expectMalformed(bytes)
    }

    @Test func aTruncatedMessageIsAnError() throws {
        let (bytes, _) = try Self.wireFormWithArrayLength()
        for count in [0, 1, 12, 16, bytes.count - 1] {
            expectMalformed(Array(bytes.prefix(count)))
        }
    }

    @Test func aMessageWhoseSignatureDisagreesWithItsBodyIsAnError() throws {
        var (bytes, lengthOffset) = try Self.wireFormWithArrayLength()
        // The signature header field holds "ay"; make it "ai": 3 bytes are not whole int32s.
        let signature = try #require(
            (0..<lengthOffset - 1).first { bytes[$0] == UInt8(ascii: "a") && bytes[$0 + 1] == UInt8(ascii: "y") })
        bytes[signature + 1] = UInt8(ascii: "i")
        expectMalformed(bytes)
    }

    private func expectMalformed(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation) {
            _ = try Message.demarshal(bytes).arguments()
        } throws: { error in
            guard let error = error as? DBusError else { return false }
            return error.code == .unexpectedReply && error.message.contains("malformed D-Bus message")
        }
    }
}
