/// The state of a survey (``CaptureImport/survey(progress:)``) while it
/// reads: the inventory so far, the device of the last value's link, the
/// last time and the progress. A plain value a reader updates in place per
/// value (``CapturePacketReader/readValues(analyzing:into:)``), so counting
/// a value captures nothing and checks no access at run time.
struct CaptureSurvey {
    /// What the survey found so far.
    var inventory = CaptureInventory()
    /// The latest packet time.
    var last: UInt64 = 0
    /// Bytes of the files read before the current one.
    var done: UInt64 = 0
    /// Bytes of every file.
    let total: UInt64
    /// Packets of the current file.
    var count = 0
    let progress: ((UInt64, UInt64) -> Void)?
    // The device of the last value's link, kept while its peer cannot change.
    private var valueLink: CaptureLink?
    private var valueEpoch = 0
    private var valuePosition = 0

    /// A survey of files of `total` bytes.
    init(total: UInt64, progress: ((UInt64, UInt64) -> Void)?) {
        self.total = total
        self.progress = progress
    }

    /// Counts a packet of host time `time`; `bytesRead` of the current file are read.
    @inline(__always)
    mutating func countPacket(time: UInt64, bytesRead: UInt64) {
        inventory.packetCount += 1
        count += 1
        if count & 0xFFF == 0 { progress?(done + bytesRead, total) }
        if inventory.firstTime == nil { inventory.firstTime = time }
        last = max(last, time)
    }

    /// Counts a packet that is one value `analyzer` took (most packets are
    /// one whole notification: counted without an event).
    @inline(__always)
    mutating func countValue(
        link: CaptureLink, handle: UInt16, kind: CaptureEvent.ValueKind, time: UInt64, bytesRead: UInt64,
        analyzer: inout HCITrafficAnalyzer
    ) {
        countPacket(time: time, bytesRead: bytesRead)
        if link != valueLink || analyzer.peerEpoch != valueEpoch {
            valuePosition = inventory.position(of: analyzer.peer(on: link))
            valueLink = link
            valueEpoch = analyzer.peerEpoch
        }
        inventory.addValue(position: valuePosition, handle: handle, kind: kind, time: time)
    }
}
