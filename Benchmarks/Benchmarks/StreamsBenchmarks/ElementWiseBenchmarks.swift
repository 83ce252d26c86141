import Benchmark
import Streams

/// The 3-stage element-wise chain: map → filter → prefix, 1M elements through
/// `map`, 500k out of `prefix`. Ours, the standard library's AsyncSequence
/// operators, and a hand-written loop (the limit), each consumed from a
/// nonisolated async function and from the main actor.
func elementWiseBenchmarks() {
    let input = 1_000_000
    let output = input / 2

    Benchmark("Element-wise chain 1M, Streams, nonisolated", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(await streamsChain(input: input, output: output)) }
    }
    Benchmark("Element-wise chain 1M, Streams, main actor", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(await streamsChainOnMainActor(input: input, output: output)) }
    }
    Benchmark("Element-wise chain 1M, stdlib, nonisolated", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(await stdlibChain(input: input, output: output)) }
    }
    Benchmark("Element-wise chain 1M, stdlib, main actor", configuration: streamsConfiguration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(await stdlibChainOnMainActor(input: input, output: output)) }
    }
    Benchmark("Element-wise chain 1M, hand-written loop, nonisolated", configuration: streamsConfiguration) {
        benchmark in
        for _ in benchmark.scaledIterations { blackHole(await handWrittenChain(input: input, output: output)) }
    }
    Benchmark("Element-wise chain 1M, hand-written loop, main actor", configuration: streamsConfiguration) {
        benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(await handWrittenChainOnMainActor(input: input, output: output))
        }
    }
}

/// An endless counter that never suspends: the same upstream for every contender.
struct Counter: AsyncSequence, Sendable {
    struct AsyncIterator: AsyncIteratorProtocol {
        var value = 0
        mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Int? {
            defer { value &+= 1 }
            return value
        }
        mutating func next() async -> Int? {
            defer { value &+= 1 }
            return value
        }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}

// `map` doubles and triples, `filter` keeps even results: half pass.

func streamsChain(input: Int, output: Int) async -> Int {
    var sum = 0
    for await value in Counter().publisher.map({ $0 &* 3 }).filter({ $0 & 1 == 0 }).prefix(output) { sum &+= value }
    return sum
}

@MainActor func streamsChainOnMainActor(input: Int, output: Int) async -> Int {
    var sum = 0
    for await value in Counter().publisher.map({ $0 &* 3 }).filter({ $0 & 1 == 0 }).prefix(output) { sum &+= value }
    return sum
}

func stdlibChain(input: Int, output: Int) async -> Int {
    var sum = 0
    for await value in Counter().map({ $0 &* 3 }).filter({ $0 & 1 == 0 }).prefix(output) { sum &+= value }
    return sum
}

@MainActor func stdlibChainOnMainActor(input: Int, output: Int) async -> Int {
    var sum = 0
    for await value in Counter().map({ $0 &* 3 }).filter({ $0 & 1 == 0 }).prefix(output) { sum &+= value }
    return sum
}

func handWrittenChain(input: Int, output: Int) async -> Int {
    var sum = 0
    var count = 0
    var iterator = Counter().makeAsyncIterator()
    while count < output, let value = await iterator.next() {
        let mapped = value &* 3
        if mapped & 1 == 0 {
            sum &+= mapped
            count += 1
        }
    }
    return sum
}

@MainActor func handWrittenChainOnMainActor(input: Int, output: Int) async -> Int {
    var sum = 0
    var count = 0
    var iterator = Counter().makeAsyncIterator()
    while count < output, let value = await iterator.next(isolation: #isolation) {
        let mapped = value &* 3
        if mapped & 1 == 0 {
            sum &+= mapped
            count += 1
        }
    }
    return sum
}
