import Foundation
import Testing

@testable import DBus

/// Every class of bad input throws `invalidArgument` with a message that
/// names the problem; none reaches libdbus (which would abort the process).
@Suite struct ValidationTests {
    struct BadArgument: Sendable, CustomTestStringConvertible {
        let label: String
        let value: DBusValue
        let mentions: String
        var testDescription: String { label }
    }

    static let badArguments: [BadArgument] = [
        BadArgument(label: "string with NUL", value: .string("a\u{0}b"), mentions: "NUL"),
        BadArgument(
            label: "object path without leading slash", value: .objectPath("org/bluez"), mentions: "object path"),
        BadArgument(label: "object path with trailing slash", value: .objectPath("/org/"), mentions: "object path"),
        BadArgument(label: "object path with double slash", value: .objectPath("/a//b"), mentions: "object path"),
        BadArgument(label: "object path with dash", value: .objectPath("/dev-1"), mentions: "object path"),
        BadArgument(label: "empty object path", value: .objectPath(""), mentions: "object path"),
        BadArgument(label: "object path with NUL", value: .objectPath("/a\u{0}"), mentions: "NUL"),
        BadArgument(label: "signature value unbalanced", value: .signature("a{sv"), mentions: "signature"),
        BadArgument(label: "signature value unknown type", value: .signature("z"), mentions: "signature"),
        BadArgument(
            label: "array element of wrong type", value: .array(elementSignature: "s", [.int32(1)]), mentions: "\"i\""),
        BadArgument(
            label: "array element signature not single", value: .array(elementSignature: "ss", []),
            mentions: "single complete"),
        BadArgument(
            label: "array element signature empty", value: .array(elementSignature: "", []), mentions: "single complete"
        ),
        BadArgument(
            label: "array element signature invalid", value: .array(elementSignature: "a", []),
            mentions: "single complete"),
        BadArgument(
            label: "byte array holding an int", value: .array(elementSignature: "y", [.byte(1), .int32(2)]),
            mentions: "[1]"),
        BadArgument(
            label: "dictionary key not basic", value: .dictionary(keySignature: "v", valueSignature: "s", []),
            mentions: "basic"),
        BadArgument(
            label: "dictionary key container", value: .dictionary(keySignature: "as", valueSignature: "s", []),
            mentions: "basic"),
        BadArgument(
            label: "dictionary key of wrong type",
            value: .dictionary(
                keySignature: "s", valueSignature: "v", [DBusDictionaryEntry(key: .int32(1), value: .variant(.byte(1)))]
            ),
            mentions: "key"),
        BadArgument(
            label: "dictionary value of wrong type",
            value: .dictionary(
                keySignature: "s", valueSignature: "v", [DBusDictionaryEntry(key: .string("k"), value: .byte(1))]),
            mentions: "value"),
        BadArgument(
            label: "dictionary value signature invalid", value: .dictionary(keySignature: "s", valueSignature: "{", []),
            mentions: "value signature"),
        BadArgument(label: "empty structure", value: .structure([]), mentions: "at least one field"),
        BadArgument(
            label: "bad string deep inside", value: .vardict(["k": .structure([.strings(["ok", "bad\u{0}"])])]),
            mentions: "NUL"),
        BadArgument(label: "bad path inside a variant", value: .variant(.objectPath("nope")), mentions: "object path"),
        BadArgument(
            label: "variants nested 65 deep",
            value: (0..<65).reduce(DBusValue.byte(1)) { inner, _ in .variant(inner) }, mentions: "nested"),
        BadArgument(
            label: "arrays nested 33 deep",
            value: (0..<33).reduce(DBusValue.byte(1)) { inner, _ in .array(elementSignature: inner.signature, [inner])
            },
            mentions: "signature"),
    ]

    @Test(arguments: badArguments)
    func rejectsBadArgumentsBeforeLibdbusSeesThem(_ bad: BadArgument) throws {
        let message = try Message.signal(path: "/test", interface: "org.example.Test", member: "Bad")
        let error = #expect(throws: DBusError.self) { try message.append([.int32(1), bad.value]) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(error?.message.contains(bad.mentions) == true, "message: \(error?.message ?? "none")")
        #expect(error?.message.contains("argument 1") == true, "says which argument: \(error?.message ?? "none")")
        // Nothing was appended: the message still has no arguments.
        #expect(message.signature == "")
    }

    @Test func rejectsAClosedOrTakenUnixFD() throws {
        let handle = try DBusUnixFD(duplicating: 0)
        handle.close()
        let message = try Message.signal(path: "/test", interface: "org.example.Test", member: "Bad")
        #expect(throws: DBusError.self) { try message.append([.unixFD(handle)]) }
        let taken = try DBusUnixFD(duplicating: 0)
        if let fd = taken.take() { close(fd) }
        #expect(throws: DBusError.self) { try message.append([.unixFD(taken)]) }
    }

    @Test func rejectsAMessageSignatureOver255Characters() throws {
        let message = try Message.signal(path: "/test", interface: "org.example.Test", member: "Long")
        let many = Array(repeating: DBusValue.int32(1), count: 256)
        let error = #expect(throws: DBusError.self) { try message.append(many) }
        #expect(error?.message.contains("255") == true)
    }

    @Test(arguments: [
        ("destination", "not a name", "/ok", "org.example.I", "M"),
        ("destination", ".org.example", "/ok", "org.example.I", "M"),
        ("path", "org.example", "no/slash", "org.example.I", "M"),
        ("interface", "org.example", "/ok", "nodots", "M"),
        ("interface", "org.example", "/ok", "org..example", "M"),
        ("interface", "org.example", "/ok", "org.1example", "M"),
        ("member", "org.example", "/ok", "org.example.I", "Has.Dot"),
        ("member", "org.example", "/ok", "org.example.I", "1Digit"),
        ("member", "org.example", "/ok", "org.example.I", ""),
        ("member", "org.example", "/ok", "org.example.I", "Nul\u{0}"),
    ])
    func rejectsBadMethodCallHeaders(
        _ field: String, _ destination: String, _ path: String, _ interface: String, _ member: String
    ) {
        let error = #expect(throws: DBusError.self) {
            _ = try Message.methodCall(destination: destination, path: path, interface: interface, member: member)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(field) == true, "message: \(error?.message ?? "none")")
    }

    @Test func rejectsBadSignalHeaders() {
        #expect(throws: DBusError.self) { _ = try Message.signal(path: "bad", interface: "org.example.I", member: "M") }
        #expect(throws: DBusError.self) { _ = try Message.signal(path: "/ok", interface: "bad", member: "M") }
        #expect(throws: DBusError.self) {
            _ = try Message.signal(path: "/ok", interface: "org.example.I", member: "b-a-d")
        }
    }

    @Test func rejectsBadMatchRules() {
        let rules: [DBusMatchRule] = [
            DBusMatchRule(sender: "no dots"),
            DBusMatchRule(interface: "x"),
            DBusMatchRule(member: "a.b"),
            DBusMatchRule(path: "x"),
            DBusMatchRule(pathNamespace: "/a/"),
            DBusMatchRule(path: "/a", pathNamespace: "/a"),
            DBusMatchRule(destination: "::"),
            DBusMatchRule(arguments: [64: "x"]),
            DBusMatchRule(arguments: [0: "nul\u{0}"]),
            DBusMatchRule(argumentPaths: [-1: "/"]),
        ]
        for rule in rules {
            #expect(throws: DBusError.self, "\(rule.ruleString)") { try rule.validate() }
        }
        #expect(throws: Never.self) { try DBusMatchRule.nameOwnerChanged(of: "org.bluez").validate() }
    }

    @Test func quotesMatchRuleValues() {
        let rule = DBusMatchRule(
            sender: "org.bluez", member: "PropertiesChanged", pathNamespace: "/org/bluez",
            arguments: [0: "it's"], argumentPaths: [1: "/org/bluez/"])
        #expect(
            rule.ruleString
                == "type='signal',sender='org.bluez',member='PropertiesChanged',path_namespace='/org/bluez',arg0='it'\\''s',arg1path='/org/bluez/'"
        )
    }

    @Test func matchRulesMatchLikeTheBus() {
        let namespace = DBusMatchRule(pathNamespace: "/org/bluez")
        func header(_ rule: DBusMatchRule, path: String, sender: String = ":1.1", owner: String? = nil) -> Bool {
            rule.matchesHeader(
                sender: sender, path: path, interface: "i.i", member: "M", destination: nil, owner: owner)
        }
        #expect(header(namespace, path: "/org/bluez"))
        #expect(header(namespace, path: "/org/bluez/hci0"))
        #expect(!header(namespace, path: "/org/bluezz"))
        #expect(header(DBusMatchRule(pathNamespace: "/"), path: "/anything"))
        let bySender = DBusMatchRule(sender: "org.bluez")
        #expect(header(bySender, path: "/", sender: ":1.5", owner: ":1.5"))
        #expect(!header(bySender, path: "/", sender: ":1.6", owner: ":1.5"))
        #expect(!header(bySender, path: "/", sender: ":1.5", owner: nil))
        #expect(header(DBusMatchRule(sender: ":1.5"), path: "/", sender: ":1.5"))
        let argPath = DBusMatchRule(argumentPaths: [0: "/org/bluez/"])
        #expect(argPath.matchesArguments([.objectPath("/org/bluez/hci0")]))
        #expect(argPath.matchesArguments([.string("/org/")]))
        #expect(!argPath.matchesArguments([.objectPath("/org/other")]))
        #expect(!argPath.matchesArguments([]))
        #expect(DBusMatchRule(arguments: [1: "x"]).matchesArguments([.int32(0), .string("x")]))
        #expect(!DBusMatchRule(arguments: [1: "x"]).matchesArguments([.int32(0), .string("y")]))
    }

    @Test func unixFDOwnership() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        var handle: DBusUnixFD? = DBusUnixFD(taking: ends[1])
        #expect(handle?.fileDescriptor == ends[1])
        handle = nil
        #expect(fcntl(ends[1], F_GETFD) == -1, "released: closed")

        let copy = try DBusUnixFD(duplicating: ends[0])
        let fd = try #require(copy.take())
        #expect(copy.take() == nil && copy.fileDescriptor == nil)
        #expect(fcntl(fd, F_GETFD) >= 0, "taken: still open, ours to close")
        close(fd)
        #expect(throws: DBusError.self) { _ = try DBusUnixFD(duplicating: -1) }
    }
}
