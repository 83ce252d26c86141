/// The slots of a two-base tuple operator; see ``TupleValues``.
struct Tuple2Values<First: Sendable, Second: Sendable>: TupleValues {
    /// One base's element, tagged with its base.
    enum Value: Sendable {
        case first(First)
        case second(Second)
    }

    private var first: First?
    private var second: Second?

    static var count: Int { 2 }

    init() {}

    func holds(_ base: Int) -> Bool {
        base == 0 ? first != nil : second != nil
    }

    mutating func store(_ value: Value) {
        switch value {
        case .first(let element): first = element
        case .second(let element): second = element
        }
    }

    var tuple: (First, Second)? {
        guard let first, let second else {
            return nil
        }
        return (first, second)
    }
}
