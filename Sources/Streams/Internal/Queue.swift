/// A first-in, first-out queue with amortised O(1) `append` and `popFirst`,
/// used for per-consumer buffers.
struct Queue<Element> {
    /// Slots; those before `head` are consumed and hold `nil`.
    private var storage: [Element?] = []
    /// Index of the first unconsumed slot.
    private var head = 0

    /// The number of queued elements.
    var count: Int { storage.count - head }

    /// Whether the queue holds no element.
    var isEmpty: Bool { head == storage.count }

    /// Adds an element at the back.
    mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Removes and returns the front element, or `nil` when empty.
    mutating func popFirst() -> Element? {
        guard head < storage.count else {
            return nil
        }
        let element = storage[head].take()
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }
}
