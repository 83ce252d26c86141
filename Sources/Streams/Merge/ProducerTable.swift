/// The live producers of a merge by identifier: an open-addressing hash
/// table (linear probing, the identifier masked as its hash).
///
/// A merge numbers its producers 0, 1, 2, … as it adds them, so the low
/// bits of an identifier spread them over the slots with no hashing at all.
/// A `[Int: MergeProducer]` ran the standard library's seeded hash on every
/// access — five times per element (delivery, count, take) and about a
/// quarter of a merge's time per element. Removal shifts the following
/// entries back (no tombstones), so a lookup never scans more than the run
/// of occupied slots around its identifier.
@usableFromInline
struct ProducerTable {
    /// One slot: a producer, or empty (`id < 0`).
    @usableFromInline
    struct Slot {
        @usableFromInline var id: Int
        @usableFromInline var producer: MergeProducer

        @inlinable
        init(id: Int, producer: MergeProducer) {
            self.id = id
            self.producer = producer
        }

        @inlinable
        static var empty: Slot { Slot(id: -1, producer: MergeProducer()) }
    }

    /// A power of two of slots, at most half of them used; empty until the
    /// first insertion.
    @usableFromInline var slots: [Slot] = []
    /// The number of producers.
    @usableFromInline var count = 0

    /// No producer.
    @inlinable
    init() {}

    /// Whether no producer is live.
    @inlinable
    var isEmpty: Bool { count == 0 }

    /// The slot of `id`, if it is in the table.
    @inlinable
    func index(of id: Int) -> Int? {
        guard !slots.isEmpty else {
            return nil
        }
        let mask = slots.count - 1
        var index = id & mask
        while true {
            let found = slots[index].id
            if found == id {
                return index
            }
            if found < 0 {
                return nil
            }
            index = (index + 1) & mask
        }
    }

    /// Whether `id` is live.
    @inlinable
    func contains(_ id: Int) -> Bool {
        index(of: id) != nil
    }

    /// The state of producer `id`, if it is live.
    @inlinable
    subscript(id: Int) -> MergeProducer? {
        guard let index = index(of: id) else {
            return nil
        }
        return slots[index].producer
    }

    /// Adds producer `id` (not in the table yet) with nothing buffered.
    @inlinable
    mutating func insert(_ id: Int) {
        precondition(id >= 0, "producer identifiers are not negative")
        if (count + 1) * 2 > slots.count {
            grow()
        }
        let mask = slots.count - 1
        var index = id & mask
        while slots[index].id >= 0 {
            index = (index + 1) & mask
        }
        slots[index] = Slot(id: id, producer: MergeProducer())
        count += 1
    }

    /// Doubles the slots (at least 4) and places every producer again.
    @inlinable
    mutating func grow() {
        let old = slots
        slots = Array(repeating: .empty, count: Swift.max(4, old.count * 2))
        count = 0
        let mask = slots.count - 1
        for slot in old where slot.id >= 0 {
            var index = slot.id & mask
            while slots[index].id >= 0 {
                index = (index + 1) & mask
            }
            slots[index] = slot
            count += 1
        }
    }

    /// Removes producer `id`; returns its state if it was live.
    @inlinable
    mutating func remove(_ id: Int) -> MergeProducer? {
        guard let removed = index(of: id) else {
            return nil
        }
        let producer = slots[removed].producer
        let mask = slots.count - 1
        // Shift back every following entry of the run whose home slot is
        // not cyclically within (hole, next]: it stays reachable.
        var hole = removed
        var next = removed
        while true {
            next = (next + 1) & mask
            let id = slots[next].id
            if id < 0 {
                break
            }
            let home = id & mask
            let reachable = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
            if !reachable {
                slots[hole] = slots[next]
                hole = next
            }
        }
        slots[hole] = .empty
        count -= 1
        return producer
    }

    /// Removes every producer.
    @inlinable
    mutating func removeAll() {
        slots = []
        count = 0
    }

    /// The live producers and their states, in no particular order.
    @inlinable
    var entries: [(id: Int, producer: MergeProducer)] {
        slots.compactMap { $0.id >= 0 ? ($0.id, $0.producer) : nil }
    }

    /// Counts one more buffered element of `producer`; returns its count
    /// (0 if it is not live).
    @inlinable
    mutating func increment(_ producer: Int) -> Int {
        guard let index = index(of: producer) else {
            return 0
        }
        slots[index].producer.buffered += 1
        return slots[index].producer.buffered
    }

    /// Parks `producer` until its elements are taken.
    @inlinable
    mutating func park(_ producer: Int, _ continuation: UnsafeContinuation<Bool, Never>) {
        if let index = index(of: producer) {
            slots[index].producer.parked = continuation
        }
    }

    /// Whether taking one more element of `producer` would resume it: it
    /// is parked and would then have at most `threshold` elements buffered.
    @inlinable
    func wouldResume(_ producer: Int, atOrBelow threshold: Int) -> Bool {
        guard let index = index(of: producer) else {
            return false
        }
        return slots[index].producer.parked != nil && slots[index].producer.buffered - 1 <= threshold
    }

    /// Counts one element of `producer` as taken; returns its continuation
    /// if it was parked and no more than `threshold` of its elements remain.
    @inlinable
    mutating func take(_ producer: Int, resumingAtOrBelow threshold: Int) -> UnsafeContinuation<Bool, Never>? {
        guard let index = index(of: producer) else {
            return nil
        }
        slots[index].producer.buffered -= 1
        guard slots[index].producer.buffered <= threshold, let parked = slots[index].producer.parked else {
            return nil
        }
        slots[index].producer.parked = nil
        return parked
    }
}
