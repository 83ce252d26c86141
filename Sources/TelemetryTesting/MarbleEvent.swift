/// One event of a marble test, input or output: a value, the finish or a
/// failure, at a tick of virtual time.
///
/// Tick `n` is the instant `n × tick` of the test's ``ManualClock`` (the
/// tick duration is a parameter of ``Marble/run(inputs:tick:clock:cancelAt:_:)``).
///
/// ```swift
/// let inputs: [MarbleEvent<Int, MarbleError>] = [.value(1, at: 0), .value(2, at: 3), .finish(at: 5)]
/// ```
///
/// `MarbleEvent` is `Equatable` and `Hashable` when its element and failure
/// are, and always `Sendable` when its element is.
public struct MarbleEvent<Element, Failure: Error> {
    /// What happened.
    public enum Kind {
        /// An element.
        case value(Element)
        /// The stream finished.
        case finish
        /// The stream failed.
        case failure(Failure)
    }

    /// The tick of the event.
    public var tick: Int
    /// What happened.
    public var kind: Kind

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - kind: What happens.
    ///   - tick: When, in ticks from zero.
    public init(_ kind: Kind, at tick: Int) {
        self.kind = kind
        self.tick = tick
    }

    /// An element at a tick.
    ///
    /// - Parameters:
    ///   - value: The element.
    ///   - tick: When, in ticks from zero.
    /// - Returns: The event.
    public static func value(_ value: Element, at tick: Int) -> Self {
        Self(.value(value), at: tick)
    }

    /// The finish at a tick.
    ///
    /// - Parameter tick: When, in ticks from zero.
    /// - Returns: The event.
    public static func finish(at tick: Int) -> Self {
        Self(.finish, at: tick)
    }

    /// A failure at a tick.
    ///
    /// - Parameters:
    ///   - error: The error.
    ///   - tick: When, in ticks from zero.
    /// - Returns: The event.
    public static func failure(_ error: Failure, at tick: Int) -> Self {
        Self(.failure(error), at: tick)
    }

    /// Whether the event ends the stream.
    public var isTerminal: Bool {
        switch kind {
        case .value: false
        case .finish, .failure: true
        }
    }
}

extension MarbleEvent.Kind: Sendable where Element: Sendable {}
extension MarbleEvent: Sendable where Element: Sendable {}
extension MarbleEvent.Kind: Equatable where Element: Equatable, Failure: Equatable {}
extension MarbleEvent: Equatable where Element: Equatable, Failure: Equatable {}
extension MarbleEvent.Kind: Hashable where Element: Hashable, Failure: Hashable {}
extension MarbleEvent: Hashable where Element: Hashable, Failure: Hashable {}

extension MarbleEvent: CustomStringConvertible {
    /// The event for test failure messages, for example `"value(a)@3"`.
    public var description: String {
        switch kind {
        case .value(let value): "value(\(value))@\(tick)"
        case .finish: "finish@\(tick)"
        case .failure(let error): "failure(\(error))@\(tick)"
        }
    }
}

/// The error a marble diagram's `^` stands for.
///
/// ```swift
/// subject.fail(MarbleError())       // what "a-^" sends at tick 2
/// ```
public struct MarbleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A name to tell errors apart in explicit-event tests.
    public var name: String

    /// Creates a marble error.
    ///
    /// - Parameter name: A name to tell errors apart; `"^"` by default.
    public init(_ name: String = "^") {
        self.name = name
    }

    /// The name.
    public var description: String {
        name
    }
}
