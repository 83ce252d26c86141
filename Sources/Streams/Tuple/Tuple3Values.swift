/// The slots of a three-base tuple operator; see ``TupleValues``.
struct Tuple3Values<First: Sendable, Second: Sendable, Third: Sendable>: TupleValues {
    /// One base's element, tagged with its base.
    enum Value: Sendable {
        case first(First)
        case second(Second)
        case third(Third)
    }

    private var first: First?
    private var second: Second?
    private var third: Third?

    static var count: Int { 3 }

    init() {}

    func holds(_ base: Int) -> Bool {
        switch base {
        case 0: first != nil
        case 1: second != nil
        default: third != nil
        }
    }

    mutating func store(_ value: Value) {
        switch value {
        case .first(let element): first = element
        case .second(let element): second = element
        case .third(let element): third = element
        }
    }

    var tuple: (First, Second, Third)? {
        guard let first, let second, let third else {
            return nil
        }
        return (first, second, third)
    }
}
