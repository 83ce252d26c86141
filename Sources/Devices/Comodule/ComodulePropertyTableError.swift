/// A Comodule property table that could not be loaded or is invalid.
///
/// Says where: the file ``line`` (when known) and the ``field`` as a path
/// (`properties[2].step`), and what is wrong in ``message``.
///
/// ```swift
/// do {
///     _ = try ComodulePropertyTable(json: Array(#"{"version": 1, "properties": [{"index": 1}]}"#.utf8))
/// } catch {
///     print(error) // line 1, properties[0].identifier: missing field "identifier" (a string)
/// }
/// ```
public struct ComodulePropertyTableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. New codes may be added; `switch` with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// A short lower-camel-case name, for logs.
        public let description: String

        private init(_ description: String) {
            self.description = description
        }

        /// The file could not be read.
        public static let unreadableFile = Code("unreadableFile")
        /// The bytes are not valid JSON.
        public static let invalidJSON = Code("invalidJSON")
        /// The `version` field is not 1.
        public static let unsupportedVersion = Code("unsupportedVersion")
        /// A required field is absent.
        public static let missingField = Code("missingField")
        /// A field has the wrong JSON type (a string for a number, …).
        public static let wrongType = Code("wrongType")
        /// A field has a value outside its rules (width 9, step 0, unknown type, …),
        /// or is present on a type that does not use it.
        public static let invalidValue = Code("invalidValue")
        /// Two properties share an index.
        public static let duplicateIndex = Code("duplicateIndex")
        /// Two properties share an identifier.
        public static let duplicateIdentifier = Code("duplicateIdentifier")
    }

    /// What went wrong.
    public var code: Code
    /// The field as a path (`properties[2].step`), or `nil` for the whole file.
    public var field: String?
    /// The 1-based line in the file, when known.
    public var line: Int?
    /// What is wrong and what is expected.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - field: The field path, if any.
    ///   - line: The 1-based line, if known.
    ///   - message: What is wrong.
    public init(code: Code, field: String?, line: Int?, message: String) {
        self.code = code
        self.field = field
        self.line = line
        self.message = message
    }

    /// `line N, <field>: <message>`, leaving out what is not known.
    public var description: String {
        var location: [String] = []
        if let line { location.append("line \(line)") }
        if let field { location.append(field) }
        return location.isEmpty ? message : location.joined(separator: ", ") + ": " + message
    }
}
