extension Array where Element == Int64 {
    /// Makes the array hold exactly `count` elements, keeping its storage:
    /// a reused buffer for one delivery's sample times (the elements kept or
    /// added are overwritten by the caller).
    @inline(__always)
    mutating func resize(to count: Int) {
        if self.count > count {
            removeLast(self.count - count)
        } else if self.count < count {
            append(contentsOf: repeatElement(0, count: count - self.count))
        }
    }
}
