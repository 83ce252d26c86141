import Locking
import Streams

/// An error for tests.
enum TestError: Error, Equatable {
    case upstream
    case transform
    case other(Int)
}

/// Counts what a pipeline does to its upstream.
final class Probe: Sendable {
    struct Counts: Equatable {
        var iteratorsMade = 0
        var nextCalls = 0
        var iteratorsReleased = 0
    }

    private let state = Locked(Counts())

    var counts: Counts { state.withLock { $0 } }
    var iteratorsMade: Int { counts.iteratorsMade }
    var nextCalls: Int { counts.nextCalls }
    var iteratorsReleased: Int { counts.iteratorsReleased }

    func record(_ update: (inout Counts) -> Void) {
        state.withLock { update(&$0) }
    }
}

/// A synchronous, counting upstream: yields `elements`, then finishes or
/// fails, and reports to a ``Probe`` every iterator made, `next` call and
/// iterator released.
struct ProbePublisher<Failure: Error>: Publisher, Sendable {
    typealias Element = Int

    enum Ending: Sendable {
        case finish
        case fail(Failure)
    }

    let elements: [Int]
    let ending: Ending
    let probe: Probe

    init(_ elements: [Int], ending: Ending = .finish, probe: Probe = Probe()) {
        self.elements = elements
        self.ending = ending
        self.probe = probe
    }

    func makeAsyncIterator() -> Iterator {
        probe.record { $0.iteratorsMade += 1 }
        return Iterator(publisher: self, token: ReleaseToken(probe: probe))
    }

    /// Reports its release to the probe.
    final class ReleaseToken: Sendable {
        let probe: Probe
        init(probe: Probe) { self.probe = probe }
        deinit { probe.record { $0.iteratorsReleased += 1 } }
    }

    struct Iterator: AsyncIteratorProtocol {
        let publisher: ProbePublisher
        let token: ReleaseToken
        var index = 0
        var ended = false

        mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(Failure) -> Int? {
            publisher.probe.record { $0.nextCalls += 1 }
            if ended {
                return nil
            }
            if index < publisher.elements.count {
                defer { index += 1 }
                return publisher.elements[index]
            }
            ended = true
            switch publisher.ending {
            case .finish: return nil
            case .fail(let error): throw error
            }
        }

        mutating func next() async throws(Failure) -> Int? {
            try await next(isolation: nil)
        }
    }
}

/// Every element of a publisher, or the error it ended with.
func collect<P: Publisher>(
    _ publisher: P,
    isolation: isolated (any Actor)? = #isolation
) async -> Result<[P.Element], P.Failure> {
    var iterator = publisher.makeAsyncIterator()
    var elements: [P.Element] = []
    do {
        while let element = try await iterator.next(isolation: isolation) {
            elements.append(element)
        }
        return .success(elements)
    } catch {
        return .failure(error)
    }
}

/// Every element of a publisher that cannot fail.
func collect<P: Publisher>(
    _ publisher: P,
    isolation: isolated (any Actor)? = #isolation
) async -> [P.Element] where P.Failure == Never {
    var iterator = publisher.makeAsyncIterator()
    var elements: [P.Element] = []
    while let element = await iterator.next(isolation: isolation) {
        elements.append(element)
    }
    return elements
}

/// Runs `body` in a task that is already cancelled when `body` starts.
func inCancelledTask<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T {
    await Task {
        withUnsafeCurrentTask { $0?.cancel() }
        return await body()
    }.value
}
