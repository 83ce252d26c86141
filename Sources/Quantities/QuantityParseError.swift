/// Why a size (``ByteSize``) or a duration (``DurationSyntax``) written as
/// text was refused: not of the form at all, or of the form but out of range.
///
/// The command line and pipeline files both read sizes and durations with
/// these parsers, so they accept the same forms and report the same problems.
///
/// ```swift
/// do {
///     _ = try ByteSize(parsing: "64 parsecs")
/// } catch {
///     print(error.message)  // '64 parsecs' is not a size (e.g. 65536, 64KiB, 256MiB or 1GiB)
/// }
/// ```
public struct QuantityParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: Sendable, Hashable {
        /// The text is not a size or duration at all (no number, an unknown unit, ...).
        case malformed
        /// The text is well formed but the value is outside the allowed range.
        case outOfRange
    }

    /// What kind of problem it is.
    public var kind: Kind
    /// What is wrong, quoting the text, for people.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
