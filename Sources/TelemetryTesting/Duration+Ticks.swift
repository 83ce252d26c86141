extension Duration {
    /// How many whole `tick`s fit in this duration, rounded toward negative
    /// infinity, computed exactly on attoseconds.
    ///
    /// Dividing the two as `Double`s is not exact: at some tick numbers
    /// (tick 13 of one-hour ticks, tick 2365 of one-second ticks) the
    /// quotient comes out a hair under the whole number, and an event at
    /// that tick would be stamped one tick early.
    ///
    /// - Parameter tick: A positive duration.
    /// - Returns: `floor(self / tick)`.
    func wholeTicks(of tick: Duration) -> Int {
        let (quotient, remainder) = attoseconds.quotientAndRemainder(dividingBy: tick.attoseconds)
        return Int(remainder < 0 ? quotient - 1 : quotient)
    }

    /// `count` of this duration, exactly, or `nil` past the largest
    /// duration a `Duration` holds.
    ///
    /// - Parameter count: A number of ticks.
    /// - Returns: `self * count`, unless it overflows.
    func times(_ count: Int) -> Duration? {
        let (attoseconds, overflow) = attoseconds.multipliedReportingOverflow(by: Int128(count))
        return overflow ? nil : Duration(attoseconds: attoseconds)
    }
}
