/// The slots of a two-base tuple operator; see ``TupleValues``.
@usableFromInline
struct Tuple2Values<First: Sendable, Second: Sendable>: TupleValues {
    /// One base's element, tagged with its base.
    @usableFromInline
    enum Value: Sendable {
        case first(First)
        case second(Second)
    }

    @usableFromInline var first: First?
    @usableFromInline var second: Second?

    @inlinable
    static var count: Int { 2 }

    @inlinable
    init() {}

    @inlinable
    func holds(_ base: Int) -> Bool {
        base == 0 ? first != nil : second != nil
    }

    @inlinable
    mutating func store(_ value: Value) {
        switch value {
        case .first(let element): first = element
        case .second(let element): second = element
        }
    }

    @inlinable
    var tuple: (First, Second)? {
        guard let first, let second else {
            return nil
        }
        return (first, second)
    }
}
