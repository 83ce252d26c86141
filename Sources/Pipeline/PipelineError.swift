/// An error in a pipeline file, or one a pipeline met while running: where
/// (file, line, column) and what was expected.
///
/// Its ``description`` is one line in the compiler's format, ready for stderr:
///
/// ```swift
/// do {
///     _ = try Pipeline(contentsOfFile: "Pipelines/imu.yaml")
/// } catch {
///     print(error)  // Pipelines/imu.yaml:12:9: unknown operator 'debouce' (expected one of: map, filter, ...)
/// }
/// ```
public struct PipelineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of pipeline error. New codes may be added; match with `==`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case io, syntax, unknownKey, missingKey, duplicate, wrongType, invalidValue, outOfRange,
                unresolvedTopic, cycle, unsupportedSource, runtime
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The file could not be read.
        public static let io = Code(.io)
        /// The text is not valid YAML.
        public static let syntax = Code(.syntax)
        /// A key the schema does not know (often a typo).
        public static let unknownKey = Code(.unknownKey)
        /// A required key is missing.
        public static let missingKey = Code(.missingKey)
        /// A key, a device or a derived stream name appears twice.
        public static let duplicate = Code(.duplicate)
        /// A value of the wrong type (a list where a mapping belongs, text where a number belongs).
        public static let wrongType = Code(.wrongType)
        /// A value of the right type that is not one of the allowed ones (family, operator, unit, ...).
        public static let invalidValue = Code(.invalidValue)
        /// A number outside its range (zstd level 1...22, a negative duration, ...).
        public static let outOfRange = Code(.outOfRange)
        /// A topic pattern that no declared device can produce, or an unknown derived stream.
        public static let unresolvedTopic = Code(.unresolvedTopic)
        /// Derived streams that depend on each other in a cycle.
        public static let cycle = Code(.cycle)
        /// A device source this build cannot run (live capture, capture files).
        public static let unsupportedSource = Code(.unsupportedSource)
        /// A problem found while running (a field that is not numeric in the recorded schema).
        public static let runtime = Code(.runtime)

        public var description: String { value.rawValue }
    }

    /// What kind of error this is.
    public var code: Code
    /// The pipeline file, as it was named when loaded.
    public var file: String
    /// The line, from 1; 0 when the error concerns the whole file.
    public var line: Int
    /// The column, from 1; 0 when unknown.
    public var column: Int
    /// What is wrong and what was expected.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of error.
    ///   - location: Where in the pipeline file.
    ///   - message: What is wrong and what was expected.
    public init(_ code: Code, at location: SourceLocation, _ message: String) {
        self.code = code
        self.file = location.file
        self.line = location.line
        self.column = location.column
        self.message = message
    }

    /// `file:line:column: message` (or `file: message` without a line).
    public var description: String {
        if line <= 0 { return "\(file): \(message)" }
        if column <= 0 { return "\(file):\(line): \(message)" }
        return "\(file):\(line):\(column): \(message)"
    }
}
