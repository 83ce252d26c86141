import Locking
import Streams
import Testing

/// An explicit `next()` (not `next(isolation:)`, which a `for await` loop
/// calls) on an element-wise operator's iterator runs on the caller's actor
/// and hands that actor on to its upstream: called on the main actor, the
/// upstream's `next(isolation:)` receives the main actor, not `nil` (which
/// made the upstream run on the global executor, a hop off the main actor
/// and back per element).
@Suite struct ExplicitNextIsolationTests {
    @Test @MainActor func everyElementWiseIteratorPassesTheMainActorUpstream() async {
        await Self.expectMainActor("publisher") {
            var i = $0.publisher.makeAsyncIterator()
            _ = try? await i.next()
        }
        await Self.expectMainActor("map") {
            var i = $0.publisher.map { $0 + 1 }.makeAsyncIterator()
            _ = try? await i.next()
        }
        await Self.expectMainActor("filter") {
            var i = $0.publisher.filter { _ in true }.makeAsyncIterator()
            _ = try? await i.next()
        }
        await Self.expectMainActor("compactMap") {
            var i = $0.publisher.compactMap { Optional($0) }.makeAsyncIterator()
            _ = try? await i.next()
        }
        await Self.expectMainActor("scan") {
            var i = $0.publisher.scan(0, +).makeAsyncIterator()
            _ = try? await i.next()
        }
        await Self.expectMainActor("removeDuplicates") {
            var i = $0.publisher.removeDuplicates().makeAsyncIterator()
            _ = try? await i.next()
        }
        await Self.expectMainActor("prefix") {
            var i = $0.publisher.prefix(5).makeAsyncIterator()
            _ = try? await i.next()
        }
        await Self.expectMainActor("prefix(while:)") {
            var i = $0.publisher.prefix { _ in true }.makeAsyncIterator()
            _ = try? await i.next()
        }
        await Self.expectMainActor("dropFirst") {
            var i = $0.publisher.dropFirst(1).makeAsyncIterator()
            _ = try? await i.next()
        }
        await Self.expectMainActor("chunked") {
            var i = $0.publisher.chunked(count: 2).makeAsyncIterator()
            _ = try? await i.next()
        }
        await Self.expectMainActor("handleEvents") {
            var i = $0.publisher.handleEvents(receiveElement: { _ in }).makeAsyncIterator()
            _ = try? await i.next()
        }
        await Self.expectMainActor("timestamp") {
            var i = $0.publisher.timestamp().makeAsyncIterator()
            _ = try? await i.next()
        }
        await Self.expectMainActor("materialize") {
            var i = $0.publisher.materialize().makeAsyncIterator()
            _ = await i.next()
        }
        await Self.expectMainActor("mapError") {
            var i = $0.publisher.mapError { _ in OtherError() }.makeAsyncIterator()
            _ = try? await i.next()
        }
        await Self.expectMainActor("catch") {
            var i = $0.publisher.catch { _ in Empty().publisher }.makeAsyncIterator()
            _ = await i.next()
        }
        await Self.expectMainActor("retry") {
            var i = $0.publisher.retry(1).makeAsyncIterator()
            _ = try? await i.next()
        }
    }

    /// Runs `pull` (one explicit `next()` on a chain over a fresh probe) and
    /// expects the probe to have been asked on the main actor only.
    @MainActor
    static func expectMainActor(
        _ name: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ pull: @MainActor (IsolationProbe) async -> Void
    ) async {
        let probe = IsolationProbe()
        await pull(probe)
        let seen = probe.seen
        #expect(!seen.isEmpty && seen.allSatisfy { $0 }, "\(name): \(seen)", sourceLocation: sourceLocation)
    }
}

struct ProbeError: Error {}
struct OtherError: Error {}

/// A never-failing publisher with no element.
struct Empty: AsyncSequence, Sendable {
    struct AsyncIterator: AsyncIteratorProtocol {
        mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Int? { nil }
        mutating func next() async -> Int? { nil }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}

/// Three elements (its failure type is `ProbeError`, for the operators
/// that handle failures); records, for each `next(isolation:)`, whether the
/// isolation it was given is the main actor.
final class IsolationProbe: AsyncSequence, Sendable {
    private let calls = Locked<[Bool]>([])

    /// One entry per call: `true` when it was given the main actor.
    var seen: [Bool] { calls.withLock { $0 } }

    struct AsyncIterator: AsyncIteratorProtocol {
        let probe: IsolationProbe
        var value = 0
        mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(ProbeError) -> Int? {
            let onMain = actor.map { ObjectIdentifier($0) == ObjectIdentifier(MainActor.shared) } ?? false
            probe.calls.withLock { $0.append(onMain) }
            guard value < 3 else { return nil }
            defer { value += 1 }
            return value
        }
        mutating func next() async throws(ProbeError) -> Int? { try await next(isolation: nil) }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(probe: self) }
}
