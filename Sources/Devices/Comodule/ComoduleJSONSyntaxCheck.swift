/// Finds the first syntax error in a JSON text, with its line and column.
///
/// Foundation's `JSONDecoder` on Linux reports every syntax error as "The
/// given data was not valid JSON." without a position, so property-table
/// loading runs this strict RFC 8259 check when decoding fails, to say where.
/// Iterative where it matters and depth-limited, so no input traps.
struct ComoduleJSONSyntaxCheck {
    /// A syntax error: 1-based line and column (in bytes) and what was expected.
    struct Failure: Error, Sendable, Hashable {
        var line: Int
        var column: Int
        var message: String
    }

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0
    private static let maximumDepth = 256

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The first syntax error in `json`, or `nil` when it is valid JSON.
    static func firstError(in json: [UInt8]) -> Failure? {
        var check = ComoduleJSONSyntaxCheck(json)
        if let invalid = firstInvalidUTF8(in: json) {
            check.position = invalid
            return check.failure("UTF-8 text")
        }
        do throws(Failure) {
            try check.value()
            check.skipWhitespace()
            if check.position < json.count { throw check.failure("the end of the file after the top-level value") }
            return nil
        } catch {
            return error
        }
    }

    /// The offset of the first byte that does not start a valid UTF-8
    /// sequence (overlong forms and surrogates included), or `nil`.
    static func firstInvalidUTF8(in bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length: Int
            switch lead {
            case 0x00..<0x80: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return index
            }
            guard index + length <= bytes.count else { return index }
            for offset in 1..<length where bytes[index + offset] & 0xC0 != 0x80 { return index }
            if length > 1 {
                let second = bytes[index + 1]
                if (lead == 0xE0 && second < 0xA0) || (lead == 0xED && second > 0x9F)
                    || (lead == 0xF0 && second < 0x90) || (lead == 0xF4 && second > 0x8F)
                {
                    return index
                }
            }
            index += length
        }
        return nil
    }

    private func failure(_ expected: String) -> Failure {
        var line = 1
        var lineStart = 0
        for index in 0..<min(position, bytes.count) where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        let found: String
        if position >= bytes.count {
            found = "the end of the file"
        } else if bytes[position] >= 0x20, bytes[position] < 0x7F {
            found = "'\(Character(Unicode.Scalar(bytes[position])))'"
        } else {
            found = "byte 0x\(String(bytes[position], radix: 16))"
        }
        return Failure(line: line, column: position - lineStart + 1, message: "expected \(expected), found \(found)")
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
        guard current == byte else { throw failure(what) }
        position += 1
    }

    private mutating func value() throws(Failure) {
        skipWhitespace()
        guard let byte = current else { throw failure("a value") }
        switch byte {
        case UInt8(ascii: "{"): try container(close: UInt8(ascii: "}"), isObject: true)
        case UInt8(ascii: "["): try container(close: UInt8(ascii: "]"), isObject: false)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw failure("a value")
        }
    }

    private mutating func container(close: UInt8, isObject: Bool) throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("at most \(Self.maximumDepth) levels of nesting") }
        position += 1
        skipWhitespace()
        if current == close {
            position += 1
            depth -= 1
            return
        }
        while true {
            if isObject {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw failure("a quoted key") }
                try string()
                skipWhitespace()
                try expect(UInt8(ascii: ":"), "':' after the key")
            }
            try value()
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                position += 1
                continue
            }
            try expect(close, isObject ? "',' or '}'" : "',' or ']'")
            depth -= 1
            return
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let start = position
        let expected = word.withUTF8Buffer { Array($0) }
        for byte in expected {
            guard current == byte else {
                position = start
                throw failure("\(word)")
            }
            position += 1
        }
    }

    private mutating func string() throws(Failure) {
        position += 1
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return
            case UInt8(ascii: "\\"):
                position += 1
                guard let escaped = current else { throw failure("an escape character") }
                if escaped == UInt8(ascii: "u") {
                    for _ in 0..<4 {
                        position += 1
                        guard let digit = current,
                            (digit >= 0x30 && digit <= 0x39) || (digit | 0x20 >= 0x61 && digit | 0x20 <= 0x66)
                        else { throw failure("4 hex digits after \\u") }
                    }
                } else if !Array("\"\\/bfnrt".utf8).contains(escaped) {
                    throw failure("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u")
                }
                position += 1
            case 0x00..<0x20:
                throw failure("no control characters inside a string (escape them)")
            default:
                position += 1
            }
        }
        throw failure("'\"' closing the string")
    }

    private mutating func digits() -> Int {
        let start = position
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
        return position - start
    }

    private mutating func number() throws(Failure) {
        if current == UInt8(ascii: "-") { position += 1 }
        if current == UInt8(ascii: "0") {
            position += 1
        } else if digits() == 0 {
            throw failure("a digit")
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw failure("a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw failure("a digit in the exponent") }
        }
    }
}
