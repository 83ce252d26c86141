import AsyncAlgorithms
import Benchmark
import Streams

/// merge of 2, debounce with a zero interval, combineLatest of 2, and
/// share/replay to 2 consumers: Streams against swift-async-algorithms
/// 1.1.4 (`merge`, `debounce`, `combineLatest`, `share`) and, for sharing,
/// against the AsyncStream multicast people hand-roll. Same never-suspending
/// upstreams for every contender; each iteration consumes everything.
func combiningBenchmarks() {
    let count = 100_000

    Benchmark("merge 2×100k, Streams, nonisolated", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(await drain(Finite(count).publisher.merge(Finite(count).publisher)))
        }
    }
    Benchmark("merge 2×100k, Streams, main actor", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(await drainOnMainActor(Finite(count).publisher.merge(Finite(count).publisher)))
        }
    }
    Benchmark("merge 2×100k, async-algorithms, nonisolated", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(await drain(AsyncAlgorithms.merge(Finite(count), Finite(count))))
        }
    }
    Benchmark("merge 2×100k, async-algorithms, main actor", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(await drainOnMainActor(AsyncAlgorithms.merge(Finite(count), Finite(count))))
        }
    }

    Benchmark("debounce(0) 100k, Streams, nonisolated", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(await drain(Finite(count).publisher.debounce(for: .zero))) }
    }
    Benchmark("debounce(0) 100k, async-algorithms, nonisolated", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(await drain(Finite(count).debounce(for: .zero))) }
    }

    Benchmark("combineLatest 2×100k, Streams, nonisolated", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(await drain(Finite(count).publisher.combineLatest(Finite(count).publisher).map { $0.0 &+ $0.1 }))
        }
    }
    Benchmark("combineLatest 2×100k, async-algorithms, nonisolated", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(await drain(AsyncAlgorithms.combineLatest(Finite(count), Finite(count)).map { $0.0 &+ $0.1 }))
        }
    }

    Benchmark("share to 2 consumers 100k, Streams", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(await drainTwice(Finite(count).publisher.share())) }
    }
    Benchmark("replay(1) to 2 consumers 100k, Streams", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(await drainTwice(Finite(count).publisher.replay(1))) }
    }
    Benchmark("share to 2 consumers 100k, async-algorithms", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(await drainTwice(Finite(count).share())) }
    }
    Benchmark("share to 2 consumers 100k, AsyncStream multicast", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(await asyncStreamMulticast(Finite(count))) }
    }
}

/// A finite counter that never suspends.
struct Finite: AsyncSequence, Sendable {
    let count: Int
    init(_ count: Int) { self.count = count }

    struct AsyncIterator: AsyncIteratorProtocol {
        let count: Int
        var value = 0
        mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Int? {
            guard value < count else { return nil }
            defer { value += 1 }
            return value
        }
        mutating func next() async -> Int? { await next(isolation: nil) }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(count: count) }
}

func drain<S: AsyncSequence>(_ sequence: S) async -> Int where S.Element == Int {
    var sum = 0
    do { for try await value in sequence { sum &+= value } } catch {}
    return sum
}

@MainActor func drainOnMainActor<S: AsyncSequence>(_ sequence: S) async -> Int where S.Element == Int {
    var sum = 0
    do { for try await value in sequence { sum &+= value } } catch {}
    return sum
}

/// Two concurrent consumers of one shared sequence.
func drainTwice<S: AsyncSequence & Sendable>(_ sequence: S) async -> Int where S.Element == Int {
    async let first = drain(sequence)
    async let second = drain(sequence)
    return await first &+ second
}

/// The hand-rolled multicast: a task iterates the upstream and yields into
/// one AsyncStream per consumer (unbounded buffers).
func asyncStreamMulticast(_ upstream: Finite) async -> Int {
    let (first, firstContinuation) = AsyncStream<Int>.makeStream()
    let (second, secondContinuation) = AsyncStream<Int>.makeStream()
    let producer = Task {
        for await value in upstream {
            firstContinuation.yield(value)
            secondContinuation.yield(value)
        }
        firstContinuation.finish()
        secondContinuation.finish()
    }
    async let a = drain(first)
    async let b = drain(second)
    let total = await a &+ b
    await producer.value
    return total
}
