/// Turns a delivery's fitted times into the sample times handed out: never
/// after the receive time, spaced as fitted, and strictly increasing unless
/// the device time repeats.
struct SampleStamper: Sendable, Hashable {
    private struct Stamp: Sendable, Hashable {
        var time: Int64
        var epoch: Int
        var x: Double
    }

    /// Nanoseconds kept between the last sample of a delivery and its receive
    /// time, so a later delivery received at the same instant still has room.
    let guardNanoseconds: Int64
    private var last: Stamp?

    init(guardNanoseconds: Int64) {
        self.guardNanoseconds = guardNanoseconds
    }

    /// Appends to `times` the sample times of samples at device times `xs`
    /// (in sample order) of `epoch`, fitted at `fitted` nanoseconds after
    /// `origin`, received at `receive`.
    mutating func stamp(
        fitted: [Double], xs: [Double], epoch: Int, origin: Int64, receive: Int64, into times: inout [Int64]
    ) {
        guard let lastFitted = fitted.last else { return }
        let cap = Double(receive - guardNanoseconds - origin)
        let shift = max(0, lastFitted - cap)
        for index in fitted.indices {
            var time = origin + Int64((fitted[index] - shift).rounded(.down))
            if let last {
                if last.epoch == epoch, last.x == xs[index] {
                    time = last.time
                } else {
                    time = max(time, last.time + 1)
                }
            }
            time = min(time, receive)
            times.append(time)
            last = Stamp(time: time, epoch: epoch, x: xs[index])
        }
    }
}
