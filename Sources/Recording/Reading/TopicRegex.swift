#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `--regex` of topics: a POSIX extended regular expression (the syntax
/// of `grep -E`), compiled and matched by the C library's `regcomp` and
/// `regexec`, which simulate the automaton rather than backtrack, so no
/// pattern makes a match take exponential time (Swift's `Regex` backtracks:
/// `^(([a-z0-9_/])+)+X$` never finished on a 60-character topic).
///
/// What would still be slow is refused when compiling: back-references
/// (`\1` … `\9`, which need backtracking), patterns longer than
/// ``maximumLength``, and repetition counts (`{n,m}`) whose upper bounds
/// multiply past ``maximumRepetitions`` (nested counts make the automaton
/// that large: `((a{1,100}){1,100}){1,100}` took 10 s to compile).
final class TopicRegex: @unchecked Sendable {
    /// The longest pattern accepted, in bytes.
    static let maximumLength = 1024
    /// The largest product of the repetition counts' upper bounds.
    static let maximumRepetitions = 1000

    /// Compiled once, then only read: `regexec` takes it as `const`.
    private let compiled: UnsafeMutablePointer<regex_t>

    /// Compiles `text`.
    ///
    /// - Throws: `RecordingError` (`.invalidConfiguration`) naming why the
    ///   pattern is refused or does not compile.
    init(_ text: String) throws(RecordingError) {
        func refuse(_ reason: String) -> RecordingError {
            RecordingError(.invalidConfiguration, "--regex '\(text)' is not a valid regular expression: \(reason)")
        }
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maximumLength else {
            throw refuse("it is longer than \(Self.maximumLength) bytes")
        }
        guard !bytes.contains(0) else { throw refuse("it contains a NUL character") }
        var repetitions = 1
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[index + 1]) {
                    throw refuse("back-references (\\1 … \\9) are not supported")
                }
                index += 2
                continue
            }
            if byte == UInt8(ascii: "{"), let bound = Self.upperBound(bytes, from: index + 1) {
                repetitions = repetitions.multipliedReportingOverflow(by: max(bound, 1)).partialValue
                if repetitions > Self.maximumRepetitions || bound > Self.maximumRepetitions {
                    throw refuse("its repetition counts allow more than \(Self.maximumRepetitions) repeats in all")
                }
            }
            index += 1
        }
        // Compiled into a local first: a throwing initializer that had set
        // every property would run `deinit` and free it a second time.
        let regex = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
        regex.initialize(to: regex_t())
        let status = regcomp(regex, text, REG_EXTENDED | REG_NOSUB)
        guard status == 0 else {
            var message = [CChar](repeating: 0, count: 256)
            regerror(status, regex, &message, message.count)
            regfree(regex)
            regex.deallocate()
            throw refuse(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        compiled = regex
    }

    deinit {
        regfree(compiled)
        compiled.deallocate()
    }

    /// Whether the pattern matches anywhere in `topic`.
    func matches(_ topic: String) -> Bool {
        regexec(compiled, topic, 0, nil, 0) == 0
    }

    /// The upper bound of a repetition count `{n}`, `{n,}` (taken as n + 1)
    /// or `{n,m}` whose digits start at `start`; `nil` when the brace does
    /// not start one (it is then a literal brace).
    private static func upperBound(_ bytes: [UInt8], from start: Int) -> Int? {
        guard start <= bytes.count, let close = bytes[start...].firstIndex(of: UInt8(ascii: "}")),
            close - start <= 24
        else { return nil }
        let parts = String(decoding: bytes[start..<close], as: UTF8.self)
            .split(separator: ",", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let low = Int(parts[0]) else { return nil }
        if parts.count == 1 { return low }
        return parts[1].isEmpty ? low + 1 : Int(parts[1])
    }
}
