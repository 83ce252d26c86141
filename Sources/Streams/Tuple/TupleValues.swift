/// The values of a tuple operator's bases, one slot per base, typed per
/// arity (``Tuple2Values``, ``Tuple3Values``), so that the tuple is built
/// from typed slots with no casts.
///
/// The bases deliver their elements as ``Value``, tagged with their base;
/// ``tuple`` is there once every slot holds a value.
@usableFromInline
protocol TupleValues: Sendable {
    /// The tuple the operator emits: the bases' elements, in base order.
    associatedtype Tuple: Sendable
    /// One base's element, tagged with its base.
    associatedtype Value: Sendable

    /// The number of bases.
    static var count: Int { get }

    /// Every slot empty.
    init()

    /// Whether the slot of base `base` holds a value.
    func holds(_ base: Int) -> Bool

    /// Puts `value` into its base's slot, replacing what was there.
    mutating func store(_ value: Value)

    /// The tuple, once every slot holds a value.
    var tuple: Tuple? { get }
}
