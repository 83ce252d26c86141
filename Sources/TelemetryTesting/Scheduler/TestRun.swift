/// What a ``TestScheduler`` run recorded: every output event with the tick
/// it really happened at, and anything that kept the run from being exact.
///
/// Compare it with `mismatch(expected:)`, which is `nil` only when the
/// output is exactly the expected one (no event early, late, missing or
/// extra) and the run had no ``issues``.
///
/// ```swift
/// let run = await scheduler.run(input.debounce(for: scheduler.ticks(3), clock: scheduler.clock))
/// #expect(run.mismatch(expected: "-----b----[c|]") == nil)
/// ```
public struct TestRun<Element: Sendable, Failure: Error>: Sendable {
    /// The output events, each stamped with its tick, in the order they
    /// were received.
    public var events: [MarbleEvent<Element, Failure>]
    /// What made the run inexact: a malformed input diagram or another
    /// fault of the script, an operator timed on another clock than the
    /// scheduler's, the pipeline did not settle at a tick within the
    /// scheduler's settle timeout (a task kept running, or waited on
    /// something other than the scheduler's clock and inputs), the run was
    /// cut off with a timer armed, the output sent events when the
    /// scheduler cancelled it at the end, or the consumer did not end when
    /// it was cancelled. Empty for a sound run.
    public var issues: [String]
    /// Elements the inputs sent to a subscription that was still open when
    /// the run ended and that it never took: the pipeline stopped pulling
    /// that input. Not an error by itself (`flatMap(maxConcurrency: 1)`
    /// does not pull its outer input while an inner runs); assert on it
    /// where it matters.
    public var unpulled: [String]

    /// The output as a marble diagram, each element shown with
    /// `String(describing:)` (see ``MarbleDiagram``).
    ///
    /// It leaves out ``issues``: compare with `mismatch(expected:)`,
    /// which fails on them too, rather than with `==`.
    public var diagram: String {
        MarbleDiagram.render(
            events.map { event in
                switch event.kind {
                case .value(let value): MarbleEvent<String, Failure>.value(String(describing: value), at: event.tick)
                case .finish: .finish(at: event.tick)
                case .failure(let error): .failure(error, at: event.tick)
                }
            })
    }

    /// Compares the output with an expected diagram, event by event (tick,
    /// kind and value), not as rendered text.
    ///
    /// - Parameter expected: The expected diagram; elements are compared by
    ///   `String(describing:)`, a failure of any type is `^` (or `#`).
    /// - Returns: `nil` if the output is exactly the expected one and the
    ///   run had no issues; otherwise what differs.
    public func mismatch(expected: String) -> TestMismatch? {
        let wanted: [MarbleEvent<String, MarbleError>]
        do {
            wanted = try MarbleDiagram.parse(expected)
        } catch {
            return TestMismatch(expected: expected, actual: diagram, issues: ["the expected \(error)"] + issues)
        }
        // Event by event, not the rendered text: two values can render as
        // one character (a letter and a combining mark), and a value with
        // unbalanced parentheses as two values.
        let same =
            wanted.count == events.count
            && zip(wanted, events).allSatisfy { wanted, event in
                guard wanted.tick == event.tick else {
                    return false
                }
                switch (wanted.kind, event.kind) {
                case (.value(let text), .value(let value)): return text == String(describing: value)
                case (.finish, .finish), (.failure, .failure): return true
                default: return false
                }
            }
        guard !same || !issues.isEmpty else {
            return nil
        }
        return TestMismatch(expected: MarbleDiagram.render(wanted), actual: diagram, issues: issues)
    }
}

extension TestRun where Element: Equatable, Failure: Equatable {
    /// Compares the output with expected events, values and errors by `==`.
    ///
    /// - Parameter expected: The expected events, in order.
    /// - Returns: `nil` if the output is exactly the expected one and the
    ///   run had no issues; otherwise what differs.
    public func mismatch(expected: [MarbleEvent<Element, Failure>]) -> TestMismatch? {
        guard expected != events || !issues.isEmpty else {
            return nil
        }
        return TestMismatch(
            expected: expected.map(\.description).joined(separator: " "),
            actual: events.map(\.description).joined(separator: " "),
            issues: issues
        )
    }
}
