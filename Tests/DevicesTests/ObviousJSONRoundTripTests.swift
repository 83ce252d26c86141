import Foundation
import Testing

/// JSON helpers for the recorder-profile tests (sorted keys, compact).
enum JSONRoundTrip {
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }
}

@Suite struct ObviousJSONRoundTripTests {
    @Test func helperSortsKeys() throws {
        #expect(try JSONRoundTrip.encode(["b": 1, "a": 2]) == #"{"a":2,"b":1}"#)
    }
}
