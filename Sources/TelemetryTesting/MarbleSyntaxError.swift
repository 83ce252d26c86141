/// A marble diagram that does not parse: where, and why.
///
/// ``MarbleDiagram/parse(_:)`` throws it; a ``TestScheduler`` reports it in
/// ``TestRun/issues`` (for an input) or in the mismatch (for an expected
/// diagram), so that a typo in a diagram fails the test instead of
/// changing what it asserts.
///
/// ```swift
/// #expect(throws: MarbleSyntaxError.self) { try MarbleDiagram.parse("a-[b|") }
/// ```
public struct MarbleSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The diagram.
    public var diagram: String
    /// The position of the offending character, counted in characters from
    /// zero (the diagram's length for a diagram that ends too early).
    public var position: Int
    /// What is wrong, for example `"the group opened at 3 is not closed"`.
    public var reason: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - diagram: The diagram.
    ///   - position: The offending character's position.
    ///   - reason: What is wrong.
    public init(diagram: String, position: Int, reason: String) {
        self.diagram = diagram
        self.position = position
        self.reason = reason
    }

    /// For example `the marble diagram "a-[b|" is malformed at 5: the group opened at 2 is not closed`.
    public var description: String {
        "the marble diagram \"\(diagram)\" is malformed at \(position): \(reason)"
    }
}
