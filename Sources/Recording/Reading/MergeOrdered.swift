/// An element of a k-way merge by log time: the readers keep their open
/// chunks in an array that is a binary min-heap by ``precedes(_:)``.
package protocol MergeOrdered {
    /// Whether this element's next message comes before `other`'s.
    func precedes(_ other: Self) -> Bool
}

extension Array where Element: MergeOrdered {
    /// Restores the heap order after the element at `start` moved earlier
    /// (it was appended).
    mutating func mergeHeapSiftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard self[child].precedes(self[parent]) else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    /// Restores the heap order after the element at `start` moved later
    /// (its next message was taken, or the last element replaced it).
    mutating func mergeHeapSiftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < count, self[left].precedes(self[first]) { first = left }
            if right < count, self[right].precedes(self[first]) { first = right }
            guard first != parent else { return }
            swapAt(parent, first)
            parent = first
        }
    }
}
