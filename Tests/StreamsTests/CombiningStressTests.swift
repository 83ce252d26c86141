import Streams
import Testing

/// A small deterministic generator, so a failing iteration can be named by
/// its seed; the interleavings themselves come from the scheduler.
struct CombiningRandom: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}

/// Whether `values` keep, for each group, the order in which the group's
/// values were produced (ascending), with no duplicate.
func combiningEachGroupAscending(_ values: [Int], group: (Int) -> Int) -> Bool {
    var last: [Int: Int] = [:]
    for value in values {
        let key = group(value)
        if let previous = last[key], previous >= value { return false }
        last[key] = value
    }
    return true
}

/// Several producer tasks feed subjects concurrently into the operators;
/// every iteration checks that no element is lost or duplicated.
@Suite struct CombiningStressTests {
    @Test func mergeLosesAndDuplicatesNothing() async {
        var random = CombiningRandom(seed: 1)
        for iteration in 0..<1000 {
            let perSender = Int.random(in: 1...20, using: &random)
            let subjects = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
            let merged = merge(subjects.map { $0.subscribe() })
            let consumer = Task { await collect(merged) }
            await withTaskGroup(of: Void.self) { group in
                for (sender, subject) in subjects.enumerated() {
                    group.addTask {
                        for index in 0..<perSender { subject.send(sender * 1000 + index) }
                        subject.finish()
                    }
                }
            }
            let values = await consumer.value
            let expected = (0..<3).flatMap { sender in (0..<perSender).map { sender * 1000 + $0 } }
            #expect(values.sorted() == expected, "iteration \(iteration)")
            #expect(combiningEachGroupAscending(values) { $0 / 1000 }, "iteration \(iteration)")
        }
    }

    @Test func flatMapLosesAndDuplicatesNothing() async {
        var random = CombiningRandom(seed: 2)
        for iteration in 0..<1000 {
            let innerCount = Int.random(in: 1...5, using: &random)
            let perInner = Int.random(in: 0...10, using: &random)
            let maxConcurrency = [1, 2, 3, Int.max].randomElement(using: &random)!
            let outer = PassthroughSubject<Int, Never>()
            let inners = (0..<innerCount).map { _ in ReplaySubject<Int, Never>(count: perInner) }
            let flattened = outer.subscribe().flatMap(maxConcurrency: maxConcurrency) { inners[$0] }
            let consumer = Task { await collect(flattened) }
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for index in 0..<innerCount { outer.send(index) }
                    outer.finish()
                }
                for (index, inner) in inners.enumerated() {
                    group.addTask {
                        for element in 0..<perInner { inner.send(index * 1000 + element) }
                        inner.finish()
                    }
                }
            }
            let values = await consumer.value
            let expected = (0..<innerCount).flatMap { index in (0..<perInner).map { index * 1000 + $0 } }
            let context = "iteration \(iteration), maxConcurrency \(maxConcurrency)"
            if maxConcurrency == 1 {
                #expect(values == expected, "concatenated: \(context)")
            } else {
                #expect(values.sorted() == expected, "\(context)")
                #expect(combiningEachGroupAscending(values) { $0 / 1000 }, "\(context)")
            }
        }
    }

    @Test func flatMapLatestNeverEmitsASupersededInnerAfterANewerOne() async {
        var random = CombiningRandom(seed: 3)
        for iteration in 0..<1000 {
            let innerCount = Int.random(in: 1...5, using: &random)
            let perInner = Int.random(in: 1...10, using: &random)
            let outer = PassthroughSubject<Int, Never>()
            let inners = (0..<innerCount).map { _ in PassthroughSubject<Int, Never>() }
            let switched = outer.subscribe().flatMapLatest { inners[$0] }
            let consumer = Task { await collect(switched) }
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for index in 0..<innerCount { outer.send(index) }
                    outer.finish()
                }
                for (index, inner) in inners.enumerated() {
                    group.addTask {
                        for element in 0..<perInner { inner.send(index * 1000 + element) }
                        inner.finish()
                    }
                }
            }
            let values = await consumer.value
            let generations = values.map { $0 / 1000 }
            #expect(generations == generations.sorted(), "iteration \(iteration): \(values)")
            #expect(combiningEachGroupAscending(values) { $0 / 1000 }, "iteration \(iteration): \(values)")
        }
    }

    @Test func shareDeliversEveryElementToEveryConsumer() async {
        var random = CombiningRandom(seed: 4)
        for iteration in 0..<500 {
            let consumers = Int.random(in: 1...4, using: &random)
            let bound = Int.random(in: 0...3, using: &random)
            let perSender = Int.random(in: 1...15, using: &random)
            let upstream = PassthroughSubject<Int, Never>()
            let shared = upstream.subscribe().share(bufferingPolicy: .bounded(bound))
            let drains = (0..<consumers).map { _ in combiningDrain(shared.makeAsyncIterator()) }
            await withTaskGroup(of: Void.self) { group in
                for sender in 0..<2 {
                    group.addTask {
                        for index in 0..<perSender { upstream.send(sender * 1000 + index) }
                    }
                }
            }
            upstream.finish()
            let expected = (0..<2).flatMap { sender in (0..<perSender).map { sender * 1000 + $0 } }
            for drain in drains {
                let values = await drain.value.get()
                #expect(values.sorted() == expected, "iteration \(iteration), bound \(bound)")
                #expect(combiningEachGroupAscending(values) { $0 / 1000 }, "iteration \(iteration)")
            }
            #expect(shared.droppedCount == 0)
        }
    }

    @Test func replayHasNoGapOrDuplicateForLateConsumers() async {
        var random = CombiningRandom(seed: 5)
        for iteration in 0..<500 {
            let count = Int.random(in: 1...20, using: &random)
            let replayCount = Int.random(in: 0...3, using: &random)
            let upstream = PassthroughSubject<Int, Never>()
            let replayed = upstream.subscribe().replay(replayCount, bufferingPolicy: .bounded(64))
            let early = combiningDrain(replayed.makeAsyncIterator())
            let late = Task { () -> [Int] in
                var iterator = replayed.makeAsyncIterator()
                var values: [Int] = []
                while let value = await iterator.next() { values.append(value) }
                return values
            }
            let sender = Task {
                for value in 0..<count { upstream.send(value) }
                upstream.finish()
            }
            await sender.value
            #expect(await early.value.get() == Array(0..<count), "iteration \(iteration)")
            let lateValues = await late.value
            if let first = lateValues.first {
                #expect(lateValues == Array(first..<count), "contiguous: iteration \(iteration), \(lateValues)")
            }
        }
    }

    @Test func zipAndCombineLatestKeepEveryBasesOrder() async {
        for iteration in 0..<500 {
            let a = PassthroughSubject<Int, Never>()
            let b = PassthroughSubject<Int, Never>()
            let zip = a.subscribe().zip(b.subscribe()).map { [$0, $1] }
            let zipped = Task { await collect(zip) }
            let c = PassthroughSubject<Int, Never>()
            let d = PassthroughSubject<Int, Never>()
            let combineLatest = c.subscribe().combineLatest(d.subscribe()).map { [$0, $1] }
            let combined = Task { await collect(combineLatest) }
            await withTaskGroup(of: Void.self) { group in
                for subject in [a, b, c, d] {
                    group.addTask {
                        for value in 0..<10 { subject.send(value) }
                        subject.finish()
                    }
                }
            }
            #expect(await zipped.value == (0..<10).map { [$0, $0] }, "iteration \(iteration)")
            let tuples = await combined.value
            #expect(tuples.last == [9, 9], "iteration \(iteration)")
            #expect(tuples.map { $0[0] } == tuples.map { $0[0] }.sorted(), "iteration \(iteration)")
            #expect(tuples.map { $0[1] } == tuples.map { $0[1] }.sorted(), "iteration \(iteration)")
            #expect(Set(tuples).count == tuples.count, "one tuple per update: iteration \(iteration)")
        }
    }

    @Test func subjectsReplayWithoutGapsToConcurrentSubscribers() async {
        for iteration in 0..<500 {
            let replay = ReplaySubject<Int, Never>(count: 2)
            let current = CurrentValueSubject<Int, Never>(-1)
            let sender = Task {
                for value in 0..<30 {
                    replay.send(value)
                    current.send(value)
                }
                replay.finish()
                current.finish()
            }
            let replayValues = await collect(replay.subscribe())
            let currentValues = await collect(current.subscribe())
            await sender.value
            if let first = replayValues.first {
                #expect(replayValues == Array(first..<30), "iteration \(iteration)")
            }
            if let first = currentValues.first {
                #expect(currentValues == Array(first..<30), "iteration \(iteration)")
            }
        }
    }
}
