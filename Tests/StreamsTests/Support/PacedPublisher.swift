import Streams

/// Yields 0..<count, pausing before each; ends early once its task is
/// cancelled.
struct PacedPublisher: Publisher, Sendable {
    typealias Element = Int
    typealias Failure = Never

    let count: Int
    let pause: Duration

    struct Iterator: AsyncIteratorProtocol {
        let count: Int
        let pause: Duration
        var next = 0

        mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Int? {
            guard next < count, !Task.isCancelled else { return nil }
            try? await Task.sleep(for: pause)
            defer { next += 1 }
            return next
        }

        mutating func next() async -> Int? { await next(isolation: nil) }
    }

    func makeAsyncIterator() -> Iterator { Iterator(count: count, pause: pause) }
}
