/// Turns a delivery's fitted times into the sample times handed out: never
/// after the receive time, spaced as fitted, and strictly increasing unless
/// the device time repeats.
struct SampleStamper: Sendable, Hashable {
    /// The line a delivery's samples are placed on and how their device
    /// times are found: sample `i` holds a count `u` (unwrapped ticks or a
    /// sample index) at device time `Double(u) × scale − rebase`, fitted at
    /// `intercept + slope × x` nanoseconds after `origin`.
    struct Placement {
        var scale: Double
        var rebase: Double
        var intercept: Double
        var slope: Double
        var epoch: Int
        var origin: Int64

        @inline(__always) func x(_ count: Int64) -> Double { Double(count) * scale - rebase }
        @inline(__always) func fitted(_ x: Double) -> Double { intercept + slope * x }
    }

    /// Nanoseconds kept between the last sample of a delivery and its receive
    /// time, so a later delivery received at the same instant still has room.
    let guardNanoseconds: Int64
    /// The last sample stamped: its time, epoch and device time; `lastEpoch`
    /// `Int.min` says there is none (plain values, not an optional
    /// unwrapped per sample).
    private var lastTime: Int64 = 0
    private var lastEpoch = Int.min
    private var lastX = 0.0

    init(guardNanoseconds: Int64) {
        self.guardNanoseconds = guardNanoseconds
    }

    /// Replaces the device counts in `times[range]` (in sample order) with
    /// their sample times, placed by `placement`, received at `receive`.
    mutating func stamp(_ times: inout [Int64], _ range: Range<Int>, placement: Placement, receive: Int64) {
        times.withUnsafeMutableBufferPointer { stamp($0, range, placement: placement, receive: receive) }
    }

    /// ``stamp(_:_:placement:receive:)`` on a buffer.
    mutating func stamp(
        _ times: UnsafeMutableBufferPointer<Int64>, _ range: Range<Int>, placement: Placement, receive: Int64
    ) {
        guard !range.isEmpty else { return }
        let lastFitted = placement.fitted(placement.x(times[range.upperBound - 1]))
        let origin = placement.origin
        let cap = Double(receive - guardNanoseconds - origin)
        let shift = max(0, lastFitted - cap)
        let epoch = placement.epoch
        // The last stamp in locals, stored once after the loop.
        var lastTime = lastTime
        var lastEpoch = lastEpoch
        var lastX = lastX
        for index in range {
            let x = placement.x(times[index])
            var time = origin + Int64(flooring: placement.fitted(x) - shift)
            if lastEpoch != .min {
                if lastEpoch == epoch, lastX == x {
                    time = lastTime
                } else {
                    time = max(time, lastTime + 1)
                }
            }
            time = min(time, receive)
            times[index] = time
            lastTime = time
            lastEpoch = epoch
            lastX = x
        }
        self.lastTime = lastTime
        self.lastEpoch = lastEpoch
        self.lastX = lastX
    }
}
