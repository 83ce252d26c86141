/// A place in a pipeline file: the file's name, a line and a column (both from 1).
///
/// ```swift
/// let location = SourceLocation(file: "Pipelines/imu.yaml", line: 12, column: 9)
/// print(location)  // Pipelines/imu.yaml:12:9
/// ```
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file, as it was named when loaded.
    public var file: String
    /// The line, from 1 (0: the whole file).
    public var line: Int
    /// The column, from 1 (0: unknown).
    public var column: Int

    /// Creates a location.
    ///
    /// - Parameters:
    ///   - file: The file's name.
    ///   - line: The line, from 1.
    ///   - column: The column, from 1.
    public init(file: String, line: Int = 0, column: Int = 0) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// This location moved `offset` columns to the right.
    func advanced(by offset: Int) -> SourceLocation {
        SourceLocation(file: file, line: line, column: column + offset)
    }

    public var description: String {
        line > 0 ? "\(file):\(line):\(column)" : file
    }
}
