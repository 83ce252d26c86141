/// An asynchronous sequence of values that the operators of this library
/// can transform.
///
/// `Publisher` refines `AsyncSequence`, so a `for await` or `for try await`
/// loop consumes any publisher, and every `AsyncSequence` algorithm still
/// applies. On a publisher, this library's operators (`map`, `filter`,
/// `prefix(_:)`, …) win overload resolution over the standard library's,
/// because a method in an extension of a refining protocol is more specific.
/// They return named publisher types, so chains stay publishers:
///
/// ```swift
/// let readings = PassthroughSubject<Int, Never>()
/// let firstThreeEven = readings
///     .filter { $0.isMultiple(of: 2) }
///     .map { $0 * 10 }
///     .prefix(3)            // PrefixPublisher<MapPublisher<FilterPublisher<…>, Int>>
/// for await value in firstThreeEven { print(value) }
/// ```
///
/// Conventions every publisher of this library follows:
/// - `Failure` is the typed error a consumer can see; operators pass
///   upstream errors through unchanged and at once.
/// - The iterator implements `next(isolation:)`, so iterating from an actor
///   (the main actor included) costs no executor hop per element.
/// - Iterators are not `Sendable`; a publisher is `Sendable` when what it
///   stores is.
/// - After an iterator returned `nil` or threw, every later `next()` returns
///   `nil`.
/// - Cancelling the consuming task ends the iteration promptly.
///
/// Any `AsyncSequence` becomes a publisher with ``_Concurrency/AsyncSequence/publisher``.
public protocol Publisher<Element, Failure>: AsyncSequence {}
