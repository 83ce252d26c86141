/// Reads one capture format's records as ``CapturedPacket``s, in file order.
protocol CapturePacketReader: AnyObject {
    /// The next packet, or `nil` at the end of the file.
    func next() throws(CaptureFileError) -> CapturedPacket?
    /// Whether the file ended inside a record (a capture cut short).
    var endedInsideRecord: Bool { get }
    /// Records skipped because their link type or content is not Bluetooth HCI.
    var skippedRecords: Int { get }
}
