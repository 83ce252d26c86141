import Foundation
import Testing

@testable import DBus

/// Values of every type, nested containers, empty arrays, variants in
/// variants and dictionaries of every basic key type.
let marshallingSamples: [DBusValue] = [
    .byte(0), .byte(255),
    .boolean(true), .boolean(false),
    .int16(.min), .int16(.max), .uint16(0), .uint16(.max),
    .int32(.min), .int32(.max), .uint32(.max),
    .int64(.min), .int64(.max), .uint64(.max),
    .double(0), .double(-1.5), .double(.greatestFiniteMagnitude), .double(.infinity),
    .string(""), .string("plain"), .string("héllo ✓ 🚲 \u{FFFD}"),
    .objectPath("/"), .objectPath("/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF/service0010/char0011"),
    .signature(""), .signature("a{sv}"), .signature("ia(yv)a{oa{sa{sv}}}h"),
    .array(elementSignature: "y", []), .bytes([0, 1, 0x7F, 0x80, 255]), .bytes(Array(repeating: 0xAB, count: 4096)),
    .array(elementSignature: "s", []), .strings(["a", "", "c"]),
    .array(elementSignature: "b", [.boolean(true), .boolean(false)]),
    .array(elementSignature: "n", [.int16(-1)]), .array(elementSignature: "q", [.uint16(1)]),
    .array(elementSignature: "i", [.int32(-2), .int32(3)]), .array(elementSignature: "u", [.uint32(4)]),
    .array(elementSignature: "x", [.int64(-5)]), .array(elementSignature: "t", [.uint64(6)]),
    .array(elementSignature: "d", [.double(0.25)]),
    .array(elementSignature: "o", [.objectPath("/a"), .objectPath("/b")]),
    .array(elementSignature: "g", [.signature("ii")]),
    .array(elementSignature: "ay", [.bytes([1]), .bytes([])]),
    .array(
        elementSignature: "aai",
        [
            .array(elementSignature: "ai", [.array(elementSignature: "i", [.int32(1)])]),
            .array(elementSignature: "ai", []),
        ]),
    .array(elementSignature: "a{sv}", []),
    .array(elementSignature: "v", [.variant(.byte(1)), .variant(.string("x")), .variant(.bytes([]))]),
    .array(
        elementSignature: "(si)", [.structure([.string("one"), .int32(1)]), .structure([.string("two"), .int32(2)])]),
    .dictionary(keySignature: "y", valueSignature: "s", [DBusDictionaryEntry(key: .byte(1), value: .string("one"))]),
    .dictionary(keySignature: "b", valueSignature: "i", [DBusDictionaryEntry(key: .boolean(false), value: .int32(0))]),
    .dictionary(
        keySignature: "n", valueSignature: "v", [DBusDictionaryEntry(key: .int16(-3), value: .variant(.double(1)))]),
    .dictionary(
        keySignature: "q", valueSignature: "ay", [DBusDictionaryEntry(key: .uint16(0x004C), value: .bytes([2, 0x15]))]),
    .dictionary(
        keySignature: "i", valueSignature: "as", [DBusDictionaryEntry(key: .int32(-1), value: .strings(["x"]))]),
    .dictionary(
        keySignature: "u", valueSignature: "(ii)",
        [DBusDictionaryEntry(key: .uint32(9), value: .structure([.int32(1), .int32(2)]))]),
    .dictionary(keySignature: "x", valueSignature: "x", [DBusDictionaryEntry(key: .int64(.min), value: .int64(.max))]),
    .dictionary(
        keySignature: "t", valueSignature: "b", [DBusDictionaryEntry(key: .uint64(.max), value: .boolean(true))]),
    .dictionary(keySignature: "d", valueSignature: "d", [DBusDictionaryEntry(key: .double(0.5), value: .double(-0.5))]),
    .dictionary(
        keySignature: "s", valueSignature: "a{sv}",
        [
            DBusDictionaryEntry(key: .string("org.bluez.Device1"), value: .vardict(["RSSI": .int16(-60)])),
            DBusDictionaryEntry(key: .string("empty"), value: .vardict([:])),
        ]),
    .dictionary(
        keySignature: "o", valueSignature: "g", [DBusDictionaryEntry(key: .objectPath("/x"), value: .signature("v"))]),
    .dictionary(
        keySignature: "g", valueSignature: "o",
        [DBusDictionaryEntry(key: .signature("a{sv}"), value: .objectPath("/y"))]),
    .dictionary(keySignature: "s", valueSignature: "v", []),
    .structure([.int32(1)]),
    .structure([
        .string("outer"),
        .structure([.byte(1), .structure([.objectPath("/deep"), .array(elementSignature: "d", [])])]),
    ]),
    .structure([.variant(.structure([.uint16(1), .variant(.variant(.boolean(true)))]))]),
    .variant(.int32(7)), .variant(.variant(.variant(.string("three deep")))),
    .variant(.array(elementSignature: "y", [])), .variant(.vardict(["k": .variant(.int64(1))])),
    .vardict(["Transport": .string("le"), "DuplicateData": .boolean(false), "UUIDs": .strings([])]),
    .uint16KeyedVardict([0x0059: .bytes([1, 2, 3]), 0x004C: .bytes([])]),
    .managedObjects([
        "/org/bluez/hci0": [
            "org.bluez.Adapter1": ["Powered": .boolean(true), "Address": .string("00:11:22:33:44:55")]
        ],
        "/org/bluez/hci0/dev_AA": ["org.bluez.Device1": ["RSSI": .int16(-70)], "org.freedesktop.DBus.Properties": [:]],
    ]),
]

/// Appends `values` to a fresh signal message and reads them back.
func roundTrip(_ values: [DBusValue]) throws -> [DBusValue] {
    let message = try Message.signal(path: "/test", interface: "org.example.Test", member: "RoundTrip")
    try message.append(values)
    return try message.arguments()
}

@Suite struct MarshallingTests {
    @Test(arguments: marshallingSamples)
    func roundTripsEveryType(_ value: DBusValue) throws {
        let back = try roundTrip([value])
        #expect(back == [value], "\(value.signature) came back as \(back)")
        #expect(back.first?.signature == value.signature)
    }

    @Test func roundTripsAllSamplesInOneMessageWithTheirSignature() throws {
        // The message signature limit is 255 characters; split the samples.
        var chunk: [DBusValue] = []
        for value in marshallingSamples {
            if (chunk + [value]).map(\.signature).joined().utf8.count > 255 {
                #expect(try roundTrip(chunk) == chunk)
                chunk = []
            }
            chunk.append(value)
        }
        #expect(try roundTrip(chunk) == chunk)
        let message = try Message.signal(path: "/test", interface: "org.example.Test", member: "Sig")
        try message.append([.int32(1), .vardict([:]), .bytes([1])])
        #expect(message.signature == "ia{sv}ay")
    }

    @Test func emptyContainersKeepTheirElementTypes() throws {
        let values: [DBusValue] = [
            .array(elementSignature: "a{oa{sa{sv}}}", []),
            .dictionary(keySignature: "h", valueSignature: "v", []),
            .variant(.array(elementSignature: "(yy)", [])),
        ]
        let back = try roundTrip(values)
        #expect(back.map(\.signature) == ["aa{oa{sa{sv}}}", "a{hv}", "v"])
        #expect(back[2].variantValue?.signature == "a(yy)")
    }

    @Test func roundTripsUnixFDsAsFreshDescriptors() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let writeEnd = DBusUnixFD(taking: ends[1])
        let values: [DBusValue] = [
            .unixFD(writeEnd),
            .dictionary(
                keySignature: "h", valueSignature: "v",
                [DBusDictionaryEntry(key: .unixFD(writeEnd), value: .variant(.unixFD(writeEnd)))]),
        ]
        let back = try roundTrip(values)
        #expect(back.map(\.signature) == ["h", "a{hv}"])
        let copy = try #require(back[0].unixFD)
        let copyFD = try #require(copy.fileDescriptor)
        #expect(copyFD != ends[1], "libdbus hands out a duplicate")
        #expect(back[1].dictionaryEntries?.first?.value.variantValue?.unixFD?.fileDescriptor != nil)
        // The duplicate writes into the same pipe.
        var byte: UInt8 = 42
        #expect(write(copyFD, &byte, 1) == 1)
        var got: UInt8 = 0
        #expect(read(ends[0], &got, 1) == 1)
        #expect(got == 42)
        // The original is still ours and still open.
        #expect(writeEnd.fileDescriptor == ends[1])
        #expect(fcntl(ends[1], F_GETFD) >= 0)
    }

    @Test func typedHelpersReadWhatTheyWrite() throws {
        let back = try roundTrip([
            .vardict(["Name": .string("Polar"), "RSSI": .int16(-61), "Connected": .boolean(true)]),
            .uint16KeyedVardict([0x0059: .bytes([1, 2])]),
            .bytes([0xDE, 0xAD]),
            .managedObjects(["/org/bluez/hci0": ["org.bluez.Adapter1": ["Powered": .boolean(false)]]]),
            .strings(["a", "b"]),
        ])
        let properties = try #require(back[0].vardict)
        #expect(properties["Name"]?.string == "Polar")
        #expect(properties["RSSI"]?.int16 == -61)
        #expect(properties["Connected"]?.bool == true)
        #expect(back[1].uint16KeyedVardict?[0x0059]?.bytes == [1, 2])
        #expect(back[2].bytes == [0xDE, 0xAD])
        #expect(back[3].managedObjects?["/org/bluez/hci0"]?["org.bluez.Adapter1"]?["Powered"]?.bool == false)
        #expect(back[4].strings == ["a", "b"])
    }

    @Test func accessorsReturnNilForOtherTypes() {
        let value = DBusValue.int32(1)
        #expect(value.int32 == 1)
        #expect(value.string == nil && value.bool == nil && value.int16 == nil && value.bytes == nil)
        #expect(value.variantValue == nil && value.vardict == nil && value.managedObjects == nil)
        #expect(DBusValue.byte(1).byte == 1 && DBusValue.uint16(2).uint16 == 2 && DBusValue.uint32(3).uint32 == 3)
        #expect(DBusValue.int64(4).int64 == 4 && DBusValue.uint64(5).uint64 == 5 && DBusValue.double(6).double == 6)
        #expect(DBusValue.objectPath("/a").objectPath == "/a" && DBusValue.objectPath("/a").string == nil)
        #expect(DBusValue.signature("i").signatureValue == "i" && DBusValue.signature("i").signature == "g")
        #expect(DBusValue.structure([.byte(1)]).fields == [.byte(1)])
        #expect(DBusValue.variant(.variant(.byte(1))).variantValue == .variant(.byte(1)))
        #expect(DBusValue.variant(.variant(.byte(1))).unwrapped == .byte(1))
        #expect(DBusValue.array(elementSignature: "v", [.variant(.byte(1))]).bytes == nil)
        #expect(DBusValue.array(elementSignature: "i", [.int32(1)]).array == [.int32(1)])
    }

    @Test func signaturesDescribeNestedValues() {
        #expect(DBusValue.vardict([:]).signature == "a{sv}")
        #expect(DBusValue.uint16KeyedVardict([:]).signature == "a{qv}")
        #expect(DBusValue.managedObjects([:]).signature == "a{oa{sa{sv}}}")
        #expect(DBusValue.structure([.string("a"), .variant(.int32(1)), .bytes([])]).signature == "(svay)")
    }
}
