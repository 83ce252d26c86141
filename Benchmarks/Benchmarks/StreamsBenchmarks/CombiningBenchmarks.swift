import AsyncAlgorithms
import Benchmark
import Foundation
import Streams

/// The operators that run their upstreams (or timers) in tasks of their
/// own, Streams against swift-async-algorithms 1.1.4 where it has the
/// operator, otherwise against the `AsyncStream`/`AsyncChannel` code people
/// hand-roll. Same never-suspending upstreams for every contender; each
/// iteration consumes everything, from a nonisolated async function and
/// from the main actor. Allocations per element: `Malloc (total)` divided by
/// the element count in the benchmark's name. Each row also has a paired
/// benchmark (``PairedRuns``): ours and the peer back to back in every
/// iteration, nonisolated, with the median of the per-pair ratios.
///
/// Both sides of a row must emit the same elements (``checkEqualWork``
/// reports any row where they do not). Two rows were changed for that:
///
/// - `debounce(0)`: on a never-suspending upstream each element arrives
///   after the previous one's zero-length wait, so ours emits all 50,000
///   (as `docs/specs/operators.md` defines debounce); swift-async-algorithms'
///   debounce emits an element only when its clock task gets to run, about
///   5,000 of 50,000 in one measured run, a number that depends on
///   scheduling. The peer is now the hand-rolled equivalent of emitting every
///   element: a task reads the clock per element and yields each into an
///   `AsyncStream`.
/// - `throttle`: with 10 ms, how many windows a 50k burst spans depends on
///   the machine's speed (31 against 3 outputs in one run), and
///   async-algorithms' throttle sleeps out the interval before delivering
///   the element held at the end, where ours delivers it at the finish
///   instant. With a zero interval both emit every element, with no sleep.
///
/// The debounce with a real interval keeps async-algorithms as the peer:
/// one burst shorter than the interval comes out as its last element on
/// both sides. The shared rows subscribe every consumer before any asks
/// (``drainedBy(_:_:)``). combineLatest stays reported: how many tuples it
/// emits depends on how its two bases interleave, on both sides (99,967
/// against 98,501 in one run), so its ratio is within a few percent of
/// equal work, not exact.
func combiningBenchmarks() {
    let count = 50_000

    versus(
        "merge 2×50k",
        ours: drained { Finite(count).publisher.merge(Finite(count).publisher) },
        peer: drained { AsyncAlgorithms.merge(Finite(count), Finite(count)) })
    versus(
        "merge 3×50k",
        ours: drained { Finite(count).publisher.merge(Finite(count).publisher, Finite(count).publisher) },
        peer: drained { AsyncAlgorithms.merge(Finite(count), Finite(count), Finite(count)) })
    versus(
        "merge array 8×10k",
        ours: drained { Streams.merge((0..<8).map { _ in Finite(10_000).publisher }) },
        peer: drained { channelMerge((0..<8).map { _ in Finite(10_000) }) },
        peerName: "AsyncChannel")

    versus(
        "debounce(0) 50k",
        ours: drained { Finite(count).publisher.debounce(for: .zero) },
        peer: drained { clockedHandOff(Finite(count)) },
        peerName: "AsyncStream")
    versus(
        "debounce(50ms) one 50k burst",
        ours: drained { Finite(count).publisher.debounce(for: .milliseconds(50)) },
        peer: drained { Finite(count).debounce(for: .milliseconds(50)) })
    versus(
        "throttle(0) 50k",
        ours: drained { Finite(count).publisher.throttle(for: .zero) },
        peer: drained { Finite(count)._throttle(for: .zero) })

    versus(
        "combineLatest 2×50k",
        ours: drained { Finite(count).publisher.combineLatest(Finite(count).publisher).map { $0.0 &+ $0.1 } },
        peer: drained { AsyncAlgorithms.combineLatest(Finite(count), Finite(count)).map { $0.0 &+ $0.1 } })
    versus(
        "zip 2×50k",
        ours: drained { Finite(count).publisher.zip(Finite(count).publisher).map { $0.0 &+ $0.1 } },
        peer: drained { AsyncAlgorithms.zip(Finite(count), Finite(count)).map { $0.0 &+ $0.1 } })

    versus(
        "flatMap 100×500",
        ours: drained { Finite(100).publisher.flatMap { _ in Finite(500).publisher } },
        peer: drained { channelFlatMap(outer: Finite(100), inner: 500) },
        peerName: "AsyncChannel")
    versus(
        "flatMapLatest 1×50k",
        ours: drained { Finite(1).publisher.flatMapLatest { _ in Finite(count).publisher } },
        peer: drained { channelFlatMapLatest(outer: Finite(1), inner: count) },
        peerName: "AsyncChannel")

    for consumers in [1, 2, 8] {
        versus(
            "share to \(consumers) consumers 50k",
            ours: drainedBy(consumers) { Finite(count).publisher.share() },
            peer: drainedBy(consumers) { Finite(count).share() })
    }
    versus(
        "replay(1) to 2 consumers 50k",
        ours: drainedBy(2) { Finite(count).publisher.replay(1) },
        peer: drainedBy(2) { Finite(count).share() },
        peerName: "async-algorithms share")

    versus(
        "subject fed from another thread 50k",
        ours: Run(
            nonisolated: { await subjectFromThread(count) },
            mainActor: { await subjectFromThreadOnMainActor(count) }),
        peer: Run(
            nonisolated: { await asyncStreamFromThread(count) },
            mainActor: { await asyncStreamFromThreadOnMainActor(count) }),
        peerName: "AsyncStream")
}

/// What a contender emitted: how many elements and their sum.
struct Drained: Equatable, Sendable {
    var count = 0
    var sum = 0

    mutating func add(_ value: Int) {
        count += 1
        sum &+= value
    }

    static func + (lhs: Drained, rhs: Drained) -> Drained {
        Drained(count: lhs.count + rhs.count, sum: lhs.sum &+ rhs.sum)
    }
}

/// One contender: the same work consumed from a nonisolated async function
/// and from the main actor; returns what it emitted.
struct Run: Sendable {
    let nonisolated: @Sendable () async -> Drained
    let mainActor: @Sendable @MainActor () async -> Drained
}

/// Registers the four benchmarks of one operator: ours and the peer, each
/// nonisolated and on the main actor.
///
/// Ours' nonisolated benchmark first runs both contenders once and writes
/// to standard error if they emitted different elements: a ratio between
/// unequal work means nothing.
func versus(_ name: String, ours: Run, peer: Run, peerName: String = "async-algorithms") {
    for (contender, run) in [("Streams", ours), (peerName, peer)] {
        Benchmark(
            "\(name), \(contender), nonisolated", configuration: combiningConfiguration,
            closure: { benchmark in
                for _ in benchmark.scaledIterations { blackHole(await run.nonisolated()) }
            },
            setup: contender == "Streams" ? { await checkEqualWork(name, ours: ours, peer: peer) } : nil)
        Benchmark("\(name), \(contender), main actor", configuration: combiningConfiguration) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(await run.mainActor()) }
        }
    }
    PairedRuns.register("\(name), paired, nonisolated", ours: ours.nonisolated, peer: peer.nonisolated)
}

/// Writes to standard error when `ours` and `peer` emit different elements.
func checkEqualWork(_ name: String, ours: Run, peer: Run) async {
    let (mine, theirs) = (await ours.nonisolated(), await peer.nonisolated())
    if mine != theirs {
        let message =
            "UNEQUAL WORK in \(name): Streams emitted \(mine.count) (sum \(mine.sum)), "
            + "the peer \(theirs.count) (sum \(theirs.sum))\n"
        FileHandle.standardError.write(Data(message.utf8))
    }
}

/// Shorter runs than ``streamsConfiguration``: there are many benchmarks.
/// `STREAMS_BENCH_ITERATIONS=N` runs N iterations instead (for a profiler
/// to see more than a fraction of a second of one row).
var combiningConfiguration: Benchmark.Configuration {
    let iterations = ProcessInfo.processInfo.environment["STREAMS_BENCH_ITERATIONS"].flatMap { Int($0) }
    return .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        maxDuration: .seconds(iterations == nil ? 2 : 600), maxIterations: iterations ?? 20)
}

/// A run that drains a sequence made afresh each time.
func drained<S: AsyncSequence & SendableMetatype>(_ make: @escaping @Sendable () -> S) -> Run where S.Element == Int {
    Run(nonisolated: { await drain(make()) }, mainActor: { await drainOnMainActor(make()) })
}

/// A run where `consumers` consumers drain one shared sequence; on the main
/// actor, one of them consumes there.
///
/// Every consumer makes its iterator (subscribes) before any of them asks
/// for an element: a consumer that subscribed after the upstream started
/// would miss its first elements (on both sides, by how much depending on
/// scheduling), and the two sides would not do the same work.
func drainedBy<S: AsyncSequence & Sendable & SendableMetatype>(
    _ consumers: Int, _ make: @escaping @Sendable () -> S
) -> Run where S.Element == Int {
    Run(
        nonisolated: {
            let shared = make()
            let barrier = Barrier(consumers)
            return await withTaskGroup(of: Drained.self) { group in
                for _ in 0..<consumers { group.addTask { await drainSubscribed(shared, after: barrier) } }
                var total = Drained()
                for await drained in group { total = total + drained }
                return total
            }
        },
        mainActor: {
            let shared = make()
            let barrier = Barrier(consumers)
            return await withTaskGroup(of: Drained.self) { group in
                for _ in 1..<consumers { group.addTask { await drainSubscribed(shared, after: barrier) } }
                var total = await drainSubscribedOnMainActor(shared, after: barrier)
                for await drained in group { total = total + drained }
                return total
            }
        })
}

/// Holds consumers until all of them arrived.
actor Barrier {
    private var remaining: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { remaining = count }

    func arrive() async {
        remaining -= 1
        if remaining <= 0 {
            for continuation in waiting { continuation.resume() }
            waiting = []
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}

/// Subscribes (makes the iterator), waits for the other consumers, drains.
func drainSubscribed<S: AsyncSequence>(_ sequence: S, after barrier: Barrier) async -> Drained
where S.Element == Int {
    var iterator = sequence.makeAsyncIterator()
    await barrier.arrive()
    var drained = Drained()
    do { while let value = try await iterator.next(isolation: nil) { drained.add(value) } } catch {}
    return drained
}

@MainActor func drainSubscribedOnMainActor<S: AsyncSequence>(_ sequence: S, after barrier: Barrier) async -> Drained
where S.Element == Int {
    var iterator = sequence.makeAsyncIterator()
    await barrier.arrive()
    var drained = Drained()
    do { while let value = try await iterator.next(isolation: MainActor.shared) { drained.add(value) } } catch {}
    return drained
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

func drain<S: AsyncSequence>(_ sequence: S) async -> Drained where S.Element == Int {
    var drained = Drained()
    do { for try await value in sequence { drained.add(value) } } catch {}
    return drained
}

@MainActor func drainOnMainActor<S: AsyncSequence>(_ sequence: S) async -> Drained where S.Element == Int {
    var drained = Drained()
    do { for try await value in sequence { drained.add(value) } } catch {}
    return drained
}

/// The hand-rolled merge of an array: a task per base sends into one
/// AsyncChannel (back-pressure: each send waits for the consumer).
func channelMerge(_ bases: [Finite]) -> AsyncChannel<Int> {
    let channel = AsyncChannel<Int>()
    Task {
        await withTaskGroup(of: Void.self) { group in
            for base in bases {
                group.addTask { for await value in base { await channel.send(value) } }
            }
        }
        channel.finish()
    }
    return channel
}

/// What a zero-interval debounce does with elements that arrive at distinct
/// instants, hand-rolled: a task reads each element and the clock and
/// yields the element into an `AsyncStream` (unbounded, as ours queues the
/// elements its consumer has not taken yet).
func clockedHandOff(_ base: Finite) -> AsyncStream<Int> {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    let task = Task {
        let clock = ContinuousClock()
        for await value in base {
            blackHole(clock.now)
            continuation.yield(value)
        }
        continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
}

/// The hand-rolled flatMap: a task per inner sequence sends into one AsyncChannel.
func channelFlatMap(outer: Finite, inner: Int) -> AsyncChannel<Int> {
    let channel = AsyncChannel<Int>()
    Task {
        await withTaskGroup(of: Void.self) { group in
            for await _ in outer {
                group.addTask { for await value in Finite(inner) { await channel.send(value) } }
            }
        }
        channel.finish()
    }
    return channel
}

/// The hand-rolled flatMapLatest: each outer element cancels the previous
/// inner task and starts a new one sending into one AsyncChannel.
func channelFlatMapLatest(outer: Finite, inner: Int) -> AsyncChannel<Int> {
    let channel = AsyncChannel<Int>()
    Task {
        var current: Task<Void, Never>?
        for await _ in outer {
            current?.cancel()
            current = Task {
                for await value in Finite(inner) {
                    guard !Task.isCancelled else { return }
                    await channel.send(value)
                }
            }
        }
        await current?.value
        channel.finish()
    }
    return channel
}

/// Sends `count` elements and the finish from a thread of its own.
func sendFromThread(_ count: Int, _ send: @escaping @Sendable (Int) -> Void, finish: @escaping @Sendable () -> Void) {
    Thread.detachNewThread {
        for value in 0..<count { send(value) }
        finish()
    }
}

func subjectFromThread(_ count: Int) async -> Drained {
    let subject = PassthroughSubject<Int, Never>()
    let iterator = subject.makeAsyncIterator()
    sendFromThread(count, { subject.send($0) }, finish: { subject.finish() })
    return await drainIterator(iterator)
}

@MainActor func subjectFromThreadOnMainActor(_ count: Int) async -> Drained {
    let subject = PassthroughSubject<Int, Never>()
    var iterator = subject.makeAsyncIterator()
    sendFromThread(count, { subject.send($0) }, finish: { subject.finish() })
    var drained = Drained()
    while let value = await iterator.next() { drained.add(value) }
    return drained
}

func drainIterator(_ iterator: SubjectIterator<Int, Never>) async -> Drained {
    var iterator = iterator
    var drained = Drained()
    while let value = await iterator.next() { drained.add(value) }
    return drained
}

func asyncStreamFromThread(_ count: Int) async -> Drained {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    sendFromThread(count, { continuation.yield($0) }, finish: { continuation.finish() })
    return await drain(stream)
}

@MainActor func asyncStreamFromThreadOnMainActor(_ count: Int) async -> Drained {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    sendFromThread(count, { continuation.yield($0) }, finish: { continuation.finish() })
    return await drainOnMainActor(stream)
}
