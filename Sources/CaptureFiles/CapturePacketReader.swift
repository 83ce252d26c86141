/// Reads one capture format's records as ``CapturedPacket``s, in file order.
protocol CapturePacketReader: AnyObject {
    /// The next packet, or `nil` at the end of the file.
    func next() throws(CaptureFileError) -> CapturedPacket?
    /// Whether the file ended inside a record (a capture cut short).
    var endedInsideRecord: Bool { get }
    /// Records skipped because their link type or content is not Bluetooth HCI.
    var skippedRecords: Int { get }
    /// The next packet, or `nil` at the end of the file, given to
    /// `analyzer` first when it is one whole notification or indication
    /// (``HCITrafficAnalyzer/addValue(_:keepingBytes:)``): a reader may
    /// recognise those in place, without making a packet.
    func next(
        analyzing analyzer: inout HCITrafficAnalyzer, keepingBytes: Bool
    ) throws(CaptureFileError)
        -> CaptureRecord?
}

extension CapturePacketReader {
    /// Makes each packet, then offers it to `analyzer`.
    func next(
        analyzing analyzer: inout HCITrafficAnalyzer, keepingBytes: Bool
    ) throws(CaptureFileError)
        -> CaptureRecord?
    {
        guard let packet = try next() else { return nil }
        return CaptureRecord(packet, analyzing: &analyzer, keepingBytes: keepingBytes)
    }
}

extension CaptureRecord {
    /// `packet` offered to `analyzer`: its value when the analyzer takes it, else the packet.
    @inline(__always)
    init(_ packet: CapturedPacket, analyzing analyzer: inout HCITrafficAnalyzer, keepingBytes: Bool) {
        if let value = analyzer.addValue(packet, keepingBytes: keepingBytes) {
            self = .value(
                link: value.link, handle: value.handle, kind: value.kind, bytes: value.bytes, time: packet.time)
        } else {
            self = .packet(packet)
        }
    }
}
