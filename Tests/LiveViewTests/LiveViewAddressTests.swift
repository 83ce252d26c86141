import LiveView
import Testing

@Suite struct LiveViewAddressTests {
    @Test func aPortAloneIsServedOnTheLoopback() throws {
        #expect(try LiveViewAddress(parsing: "8765") == LiveViewAddress(host: "127.0.0.1", port: 8765))
        #expect(try LiveViewAddress(parsing: "0") == LiveViewAddress(host: "127.0.0.1", port: 0))
    }

    @Test func hostsAreNamesIPv4OrBracketedIPv6() throws {
        #expect(try LiveViewAddress(parsing: "0.0.0.0:9000") == LiveViewAddress(host: "0.0.0.0", port: 9000))
        #expect(try LiveViewAddress(parsing: "localhost:1") == LiveViewAddress(host: "localhost", port: 1))
        #expect(try LiveViewAddress(parsing: "[::1]:65535") == LiveViewAddress(host: "::1", port: 65_535))
        #expect(LiveViewAddress(host: "::1", port: 80).description == "[::1]:80")
        #expect(LiveViewAddress(host: "127.0.0.1", port: 80).description == "127.0.0.1:80")
    }

    @Test(arguments: [
        ("", "the port must be a number"),
        ("65536", "the port must be a number"),
        ("-1", "the port must be a number"),
        ("host:", "the port must be a number"),
        ("host:http", "the port must be a number"),
        (":8765", "the host is empty"),
        ("::1:8765", "write an IPv6 host in brackets"),
        ("[::1", "closing ]"),
        ("[::1]8765", "expected :PORT"),
        ("my host:80", "the host is empty or has spaces"),
    ])
    func badAddressesSayWhatIsWrong(text: String, expected: String) {
        #expect {
            try LiveViewAddress(parsing: text)
        } throws: { error in
            guard let error = error as? LiveViewError else { return false }
            return error.kind == .invalidAddress && error.message.contains(expected)
        }
    }
}
