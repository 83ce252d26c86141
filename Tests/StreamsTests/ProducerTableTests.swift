import Testing

@testable import Streams

/// The merge's table of live producers behaves as a dictionary from
/// identifier to producer state, whatever the order of insertions and
/// removals (collisions, wrap-around, back-shifted runs).
@Suite struct ProducerTableTests {
    @Test func matchesADictionaryUnderRandomInsertionsAndRemovals() {
        var generator = CombiningRandom(seed: 7)
        var table = ProducerTable()
        var reference: [Int: Int] = [:]
        var ids: [Int] = []
        var nextID = 0
        for step in 0..<20_000 {
            let roll = generator.next() % 10
            if roll < 4 || reference.isEmpty {
                // Sequential identifiers, as a merge assigns them, with
                // occasional far ones that collide with the low ones.
                let id = roll == 0 ? nextID * 64 : nextID
                nextID += 1
                guard reference[id] == nil else { continue }
                table.insert(id)
                reference[id] = 0
                ids.append(id)
            } else if roll < 7 {
                let id = ids.swapRemoveAt(Int(generator.next() % UInt64(ids.count)))
                let removed = table.remove(id)
                let expected = reference.removeValue(forKey: id)
                #expect(removed?.buffered == expected, "step \(step)")
            } else {
                let id = ids[Int(generator.next() % UInt64(ids.count))]
                #expect(table.increment(id) == reference[id]! + 1, "step \(step)")
                reference[id]! += 1
            }
            if step % 997 == 0 {
                #expect(table.count == reference.count)
                let entries = table.entries.map { ($0.id, $0.producer.buffered) }
                #expect(Dictionary(uniqueKeysWithValues: entries) == reference)
            }
        }
        for (id, buffered) in reference {
            #expect(table[id]?.buffered == buffered)
        }
        #expect(table.remove(-5) == nil)
        #expect(!table.contains(nextID * 1000))
    }

    @Test func takeResumesAParkedProducerAtTheThreshold() async {
        var table = ProducerTable()
        table.insert(3)
        for _ in 0..<4 { _ = table.increment(3) }
        let proceeded = await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
            table.park(3, continuation)
            #expect(table.take(3, resumingAtOrBelow: 2) == nil, "3 left: above the threshold")
            guard let parked = table.take(3, resumingAtOrBelow: 2) else {
                Issue.record("2 left: the parked producer is resumed")
                continuation.resume(returning: false)
                return
            }
            #expect(table[3]?.parked == nil)
            parked.resume(returning: true)
        }
        #expect(proceeded)
        #expect(table[3]?.buffered == 2)
        #expect(table.take(99, resumingAtOrBelow: 2) == nil)
        #expect(table.increment(99) == 0)
    }

    @Test func removeAllEmptiesTheTable() {
        var table = ProducerTable()
        for id in 0..<100 { table.insert(id) }
        #expect(table.count == 100)
        table.removeAll()
        #expect(table.isEmpty && table.entries.isEmpty && !table.contains(5))
    }
}

extension Array {
    /// Removes the element at `index`, moving the last one into its place.
    fileprivate mutating func swapRemoveAt(_ index: Int) -> Element {
        swapAt(index, count - 1)
        return removeLast()
    }
}
