/// A first-in, first-out queue with amortised O(1) `append` and `popFirst`,
/// used for per-consumer buffers.
@usableFromInline
struct Queue<Element> {
    /// Slots; those before `head` are consumed and hold `nil`.
    @usableFromInline var storage: [Element?] = []
    /// Index of the first unconsumed slot.
    @usableFromInline var head = 0

    /// An empty queue.
    @inlinable
    init() {}

    /// The number of queued elements.
    @inlinable
    var count: Int { storage.count - head }

    /// Whether the queue holds no element.
    @inlinable
    var isEmpty: Bool { head == storage.count }

    /// The front element, left in the queue; `nil` when empty.
    @inlinable
    var first: Element? {
        head < storage.count ? storage[head] : nil
    }

    /// Adds an element at the back.
    @inlinable
    mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Removes and returns the front element, or `nil` when empty.
    @inlinable
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

/// A queue of sendable elements is sendable: its iterator-side batches move
/// in and out of lock-protected state.
extension Queue: Sendable where Element: Sendable {}
