/// The slots of a three-base tuple operator; see ``TupleValues``.
@usableFromInline
struct Tuple3Values<First: Sendable, Second: Sendable, Third: Sendable>: TupleValues {
    /// One base's element, tagged with its base.
    @usableFromInline
    enum Value: Sendable {
        case first(First)
        case second(Second)
        case third(Third)
    }

    @usableFromInline var first: First?
    @usableFromInline var second: Second?
    @usableFromInline var third: Third?

    @inlinable
    static var count: Int { 3 }

    @inlinable
    init() {}

    @inlinable
    func holds(_ base: Int) -> Bool {
        switch base {
        case 0: first != nil
        case 1: second != nil
        default: third != nil
        }
    }

    @inlinable
    mutating func store(_ value: Value) {
        switch value {
        case .first(let element): first = element
        case .second(let element): second = element
        case .third(let element): third = element
        }
    }

    @inlinable
    var tuple: (First, Second, Third)? {
        guard let first, let second, let third else {
            return nil
        }
        return (first, second, third)
    }
}
