public import Streams

/// Marble tests for publishers: scripted input events at virtual instants
/// of a ``ManualClock``, and the outputs recorded with their instants.
///
/// The input is a `PassthroughSubject`; the test builds the publisher
/// under test from a subscription to it and the clock. The driver then
/// walks the ticks in order; at each tick it
///
/// 1. advances the clock to the tick (waking the timers due),
/// 2. sends the inputs of the tick; after each element it waits until the
///    pipeline has taken it and asks the subject again
///    (`PassthroughSubject.waitForSuspendedConsumers(atLeast:)`), so the
///    operator reads the clock at the tick of the input,
/// 3. waits until the outputs the test *expects* up to this tick have been
///    recorded (or the stream ended) before time moves on, so each output
///    is stamped with its own tick.
///
/// Nothing sleeps on a real clock and nothing counts `Task.yield()`: every
/// wait is on an event of the subject, the clock or the recorder. The
/// expected events are what makes it deterministic, as in
/// swift-async-algorithms' `validate`: an output that the test does not
/// expect is still recorded, but the tick it is stamped with is then only
/// as exact as the scheduling allows (the test fails either way). A
/// pipeline that never produces an expected output makes the test wait:
/// give marble tests a `.timeLimit`.
///
/// Two forms: ``validate(_:tick:expected:_:)`` with text diagrams, and
/// ``run(inputs:expected:tick:clock:cancelAt:_:)`` with explicit events of
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
    ///   - expected: The expected output diagram; it also tells the driver
    ///     which outputs to wait for at each tick.
    ///   - makePublisher: Builds the publisher under test from the input and
    ///     the clock.
    /// - Returns: The expected and the actual diagram, to compare.
    public static func validate<P: Publisher & Sendable>(
        _ input: String,
        tick: Duration = .seconds(1),
        expected: String,
        _ makePublisher: (SubjectSubscription<String, MarbleError>, ManualClock) -> P
    ) async -> MarbleResult where P.Element == String {
        let expectedEvents = MarbleDiagram.parse(expected)
        let actual = await drive(
            inputs: MarbleDiagram.parse(input),
            expectedTicks: expectedEvents.map(\.tick),
            tick: tick,
            clock: ManualClock(),
            cancelAt: nil,
            makePublisher
        )
        return MarbleResult(expected: MarbleDiagram.render(expectedEvents), actual: MarbleDiagram.render(actual))
    }

    /// Runs a marble test with explicit events.
    ///
    /// ```swift
    /// let outputs = await Marble.run(
    ///     inputs: [.value(1, at: 0), .value(2, at: 1), .finish(at: 4)] as [MarbleEvent<Int, Never>],
    ///     expected: [.value(2, at: 3), .finish(at: 4)]
    /// ) { input, clock in
    ///     input.debounce(for: .seconds(2), clock: clock)
    /// }
    /// #expect(outputs == [.value(2, at: 3), .finish(at: 4)])
    /// ```
    ///
    /// - Parameters:
    ///   - inputs: The events to send, in tick order.
    ///   - expected: The outputs the test expects; the driver waits for
    ///     them tick by tick before moving time on.
    ///   - tick: The virtual duration of one tick; 1 second by default.
    ///   - clock: The clock to drive, at zero; a new one by default.
    ///   - cancelAt: A tick at which to cancel the consuming task, after
    ///     that tick's inputs, or `nil`.
    ///   - makePublisher: Builds the publisher under test from the input and
    ///     the clock.
    /// - Returns: The recorded outputs with their ticks.
    public static func run<Input: Sendable, InputFailure: Error, P: Publisher & Sendable>(
        inputs: [MarbleEvent<Input, InputFailure>],
        expected: [MarbleEvent<P.Element, P.Failure>],
        tick: Duration = .seconds(1),
        clock: ManualClock = ManualClock(),
        cancelAt: Int? = nil,
        _ makePublisher: (SubjectSubscription<Input, InputFailure>, ManualClock) -> P
    ) async -> [MarbleEvent<P.Element, P.Failure>] where P.Element: Sendable {
        await drive(
            inputs: inputs,
            expectedTicks: expected.map(\.tick),
            tick: tick,
            clock: clock,
            cancelAt: cancelAt,
            makePublisher
        )
    }

    private static func drive<Input: Sendable, InputFailure: Error, P: Publisher & Sendable>(
        inputs: [MarbleEvent<Input, InputFailure>],
        expectedTicks: [Int],
        tick: Duration,
        clock: ManualClock,
        cancelAt: Int?,
        _ makePublisher: (SubjectSubscription<Input, InputFailure>, ManualClock) -> P
    ) async -> [MarbleEvent<P.Element, P.Failure>] where P.Element: Sendable {
        let subject = PassthroughSubject<Input, InputFailure>()
        let publisher = makePublisher(subject.subscribe(), clock)
        let recorder = MarbleRecorder<P.Element, P.Failure>(clock: clock, tick: tick)
        let consumer = Task { await recorder.consume(publisher) }
        await waitUntilPulled(subject, recorder)
        let lastTick = (inputs.map(\.tick) + expectedTicks + [cancelAt ?? 0]).max() ?? 0
        for current in 0...lastTick {
            await clock.advance(to: ManualClock.Instant(offset: tick * current))
            for input in inputs where input.tick == current {
                switch input.kind {
                case .value(let value):
                    if case .enqueued = subject.send(value) {
                        await waitUntilPulled(subject, recorder)
                    }
                case .finish:
                    subject.finish()
                case .failure(let error):
                    subject.fail(error)
                }
            }
            if current == cancelAt {
                consumer.cancel()
                await consumer.value
            }
            await recorder.wait(forCount: expectedTicks.filter { $0 <= current }.count)
        }
        consumer.cancel()
        await consumer.value
        return recorder.events
    }

    /// Waits until the pipeline asks the subject for its next element, or
    /// the pipeline's stream ended.
    private static func waitUntilPulled<Input: Sendable, InputFailure: Error, Element: Sendable, Failure: Error>(
        _ subject: PassthroughSubject<Input, InputFailure>,
        _ recorder: MarbleRecorder<Element, Failure>
    ) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await subject.waitForSuspendedConsumers(atLeast: 1) }
            group.addTask { await recorder.waitForEnd() }
            await group.next()
            group.cancelAll()
        }
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
