public import Streams

/// Marble tests for publishers with one input: a shorthand for a
/// ``TestScheduler`` run over one hot input.
///
/// The input is a hot ``TestInput`` scripted with the input events; the
/// test builds the publisher under test from it and the clock. The run is
/// the scheduler's lockstep run: at each tick the timers due before it
/// fire, then the tick's inputs are sent, then its timers fire, the
/// pipeline settling after each step, and every output is recorded with
/// the tick at which it really happened. The run never waits for the
/// expected outputs, so an early, late, missing or extra output always
/// shows in the result; a pipeline that does not settle is reported
/// (``MarbleResult/actual`` then carries the issues), never waited for.
/// For several inputs, cold inputs and subscription marbles, use
/// ``TestScheduler`` itself.
///
/// Two forms: ``validate(_:tick:expected:_:)`` with text diagrams, and
/// ``run(inputs:tick:clock:cancelAt:_:)`` with explicit events of
/// any type.
///
/// ```swift
/// let result = await Marble.validate("a-b----c--", expected: "-----b----c") { input, clock in
///     input.debounce(for: .seconds(3), clock: clock)
/// }
/// #expect(result.actual == result.expected)
/// ```
public enum Marble {
    /// Runs a marble test written as diagrams (see ``MarbleDiagram``).
    ///
    /// - Parameters:
    ///   - input: The input diagram, for example `"a--b-c|"`.
    ///   - tick: The virtual duration of one character; 1 second by default.
    ///   - expected: The expected output diagram (normalised into the
    ///     result; the run does not wait for it).
    ///   - makePublisher: Builds the publisher under test from the input and
    ///     the clock.
    /// - Returns: The expected and the actual diagram, to compare.
    public static func validate<P: Publisher & Sendable>(
        _ input: String,
        tick: Duration = .seconds(1),
        expected: String,
        _ makePublisher: (TestInput<String, MarbleError>, ManualClock) -> P
    ) async -> MarbleResult where P.Element == String {
        let normalised: String
        do {
            normalised = MarbleDiagram.render(try MarbleDiagram.parse(expected))
        } catch {
            return MarbleResult(expected: expected, actual: "not run: the expected \(error)")
        }
        let inputs: [MarbleEvent<String, MarbleError>]
        do {
            inputs = try MarbleDiagram.parse(input)
        } catch {
            return MarbleResult(expected: normalised, actual: "not run: the input's \(error)")
        }
        let run = await drive(inputs: inputs, tick: tick, clock: ManualClock(), cancelAt: nil, makePublisher)
        let issues = run.issues.isEmpty ? "" : " (issues: \(run.issues.joined(separator: "; ")))"
        return MarbleResult(expected: normalised, actual: run.diagram + issues)
    }

    /// Runs a marble test with explicit events.
    ///
    /// ```swift
    /// let run = await Marble.run(
    ///     inputs: [.value(1, at: 0), .value(2, at: 1), .finish(at: 4)] as [MarbleEvent<Int, Never>]
    /// ) { input, clock in
    ///     input.debounce(for: .seconds(2), clock: clock)
    /// }
    /// #expect(run.mismatch(expected: [.value(2, at: 3), .finish(at: 4)]) == nil)
    /// ```
    ///
    /// - Parameters:
    ///   - inputs: The events to send, in tick order.
    ///   - tick: The virtual duration of one tick; 1 second by default.
    ///   - clock: The clock to drive, at zero and used by nothing else; a
    ///     new one by default.
    ///   - cancelAt: A tick at which to cancel the consuming task, after
    ///     that tick's inputs, or `nil`.
    ///   - makePublisher: Builds the publisher under test from the input and
    ///     the clock.
    /// - Returns: The run: the recorded outputs with their ticks, and its
    ///   issues; compare it with `mismatch(expected:)`, which fails on
    ///   either.
    public static func run<Input: Sendable, InputFailure: Error, P: Publisher & Sendable>(
        inputs: [MarbleEvent<Input, InputFailure>],
        tick: Duration = .seconds(1),
        clock: ManualClock = ManualClock(),
        cancelAt: Int? = nil,
        _ makePublisher: (TestInput<Input, InputFailure>, ManualClock) -> P
    ) async -> TestRun<P.Element, P.Failure> where P.Element: Sendable {
        await drive(inputs: inputs, tick: tick, clock: clock, cancelAt: cancelAt, makePublisher)
    }

    private static func drive<Input: Sendable, InputFailure: Error, P: Publisher & Sendable>(
        inputs: [MarbleEvent<Input, InputFailure>],
        tick: Duration,
        clock: ManualClock,
        cancelAt: Int?,
        _ makePublisher: (TestInput<Input, InputFailure>, ManualClock) -> P
    ) async -> TestRun<P.Element, P.Failure> where P.Element: Sendable {
        let scheduler = TestScheduler(tick: tick, clock: clock)
        let input = scheduler.hot(inputs, name: "input")
        return await scheduler.run(makePublisher(input, scheduler.clock), cancelAt: cancelAt)
    }
}

/// The outcome of ``Marble/validate(_:tick:expected:_:)``: the expected and
/// the actual output as diagrams.
///
/// ```swift
/// #expect(result.actual == result.expected)
/// ```
public struct MarbleResult: Sendable, Equatable, CustomStringConvertible {
    /// The expected diagram, normalised (spaces removed, trailing `-` dropped).
    public var expected: String
    /// The recorded output as a diagram.
    public var actual: String

    /// Whether the output matched.
    public var matches: Bool {
        expected == actual
    }

    /// Both diagrams, for failure messages.
    public var description: String {
        "expected \(expected), actual \(actual)"
    }
}
