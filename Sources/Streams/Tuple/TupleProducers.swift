/// The producers a tuple operator resumes after leaving its lock: at most
/// one per base, held inline (a tuple operator has two or three bases), so
/// handing them out of the lock allocates nothing.
@usableFromInline
struct TupleProducers {
    @usableFromInline var first: TupleProducerContinuation?
    @usableFromInline var second: TupleProducerContinuation?
    @usableFromInline var third: TupleProducerContinuation?

    /// No producer.
    @inlinable
    init() {}

    /// One producer.
    @inlinable
    init(_ producer: TupleProducerContinuation) {
        first = producer
    }

    /// The producer of base `base` (0, 1 or 2), by slot.
    @inlinable
    subscript(base: Int) -> TupleProducerContinuation? {
        get {
            switch base {
            case 0: first
            case 1: second
            case 2: third
            default: preconditionFailure("A tuple operator has at most three bases, got base \(base)")
            }
        }
        set {
            switch base {
            case 0: first = newValue
            case 1: second = newValue
            case 2: third = newValue
            default: preconditionFailure("A tuple operator has at most three bases, got base \(base)")
            }
        }
    }

    /// Adds a producer in the first free slot.
    @inlinable
    mutating func append(_ producer: TupleProducerContinuation) {
        if first == nil {
            first = producer
        } else if second == nil {
            second = producer
        } else {
            precondition(third == nil, "More producers than a tuple operator has bases")
            third = producer
        }
    }

    /// The producers held, in slot order.
    @inlinable
    var all: [TupleProducerContinuation] {
        [first, second, third].compactMap { $0 }
    }

    /// Resumes every producer held with `proceed`.
    @inlinable
    func resume(returning proceed: Bool) {
        first?.resume(returning: proceed)
        second?.resume(returning: proceed)
        third?.resume(returning: proceed)
    }
}
