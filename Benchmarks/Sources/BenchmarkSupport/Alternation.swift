import Synchronization

/// Which side of a paired benchmark runs first in each iteration: the first
/// side, then the second, then the first, …
///
/// A paired benchmark runs two contenders back to back in every iteration,
/// so that a change of the machine's speed moves both alike; alternating
/// the order keeps either side from always running first (on a cold cache,
/// or right after the other's teardown or write-back). The iteration
/// index cannot say whose turn it is: ordo-one/benchmark calls the closure
/// once per iteration, and `benchmark.scaledIterations` is `0..<1` at the
/// default scaling factor, so `iteration.isMultiple(of: 2)` is always true.
public final class Alternation: Sendable {
    private let count = Mutex(0)

    /// A new alternation; the first side goes first in the first iteration.
    public init() {}

    /// The two sides in this iteration's order, `true` standing for the
    /// first side: `[true, false]`, then `[false, true]`, and so on; each
    /// call is one iteration.
    public func order() -> [Bool] {
        count.withLock { count in
            defer { count += 1 }
            return count.isMultiple(of: 2) ? [true, false] : [false, true]
        }
    }

    /// `sides` sides (0, 1, …) in this iteration's order, each iteration
    /// starting one further: `[0, 1, 2]`, then `[1, 2, 0]`, `[2, 0, 1]`,
    /// and so on, so each side goes first, in the middle and last alike.
    public func rotation(of sides: Int) -> [Int] {
        count.withLock { count in
            defer { count += 1 }
            return (0..<sides).map { (count + $0) % sides }
        }
    }
}
