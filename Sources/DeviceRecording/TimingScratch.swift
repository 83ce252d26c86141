/// The buffers a notification's values are timed with, reused from one
/// notification to the next so timing allocates little.
struct TimingScratch {
    var ticks: [UInt64] = []
    var members: [(index: Int, sample: Int)] = []
    /// Sample times, each a `UInt64` of nanoseconds kept as its bits.
    var times: [Int64] = []
}
