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
    /// ``next(analyzing:keepingBytes:)`` keeping a value's bytes by
    /// appending them to `bytes` (the record's are then empty): a batch of
    /// values in one buffer, not an array each.
    func next(
        analyzing analyzer: inout HCITrafficAnalyzer, appendingValueTo bytes: inout [UInt8]
    ) throws(CaptureFileError)
        -> CaptureRecord?
    /// Reads the run of records from here that are each one whole
    /// notification or indication the analyzer takes (what
    /// ``next(analyzing:keepingBytes:)`` returns as values, without their
    /// bytes), counting each in `survey`; stops before any other record and
    /// at the end of the file. A reader may read none (the caller then reads
    /// the next record).
    func readValues(
        analyzing analyzer: inout HCITrafficAnalyzer, into survey: inout CaptureSurvey) throws(CaptureFileError)
    /// Reads the run of records from here that are each one whole
    /// notification or indication the analyzer takes, appending each to
    /// `batch` as `resolver` resolves it (its bytes to the batch's buffer)
    /// and raising `lastTime` to its time, until `batch` holds `limit`
    /// outputs; stops before any other record and at the end of the file. A
    /// reader may read none (the caller then reads the next record).
    func readValues(
        analyzing analyzer: inout HCITrafficAnalyzer, resolving resolver: inout CaptureValueResolver,
        into batch: inout CaptureOutputBatch, upTo limit: Int, lastTime: inout UInt64
    ) throws(CaptureFileError)
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

    /// Reads no value: the caller reads each record with ``next(analyzing:keepingBytes:)``.
    func readValues(
        analyzing analyzer: inout HCITrafficAnalyzer, into survey: inout CaptureSurvey
    ) throws(CaptureFileError) {}

    /// Reads no value: the caller reads each record with ``next(analyzing:appendingValueTo:)``.
    func readValues(
        analyzing analyzer: inout HCITrafficAnalyzer, resolving resolver: inout CaptureValueResolver,
        into batch: inout CaptureOutputBatch, upTo limit: Int, lastTime: inout UInt64
    ) throws(CaptureFileError) {}

    /// Makes each packet, then offers it to `analyzer`; a value's bytes are appended to `bytes`.
    func next(
        analyzing analyzer: inout HCITrafficAnalyzer, appendingValueTo bytes: inout [UInt8]
    ) throws(CaptureFileError)
        -> CaptureRecord?
    {
        guard let packet = try next() else { return nil }
        return CaptureRecord(packet, analyzing: &analyzer, appendingValueTo: &bytes)
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

    /// `packet` offered to `analyzer`, its value's bytes appended to `bytes` (the record's are empty).
    @inline(__always)
    init(_ packet: CapturedPacket, analyzing analyzer: inout HCITrafficAnalyzer, appendingValueTo bytes: inout [UInt8])
    {
        guard packet.kind == .acl, packet.direction == .received, !packet.isTruncated else {
            self = .packet(packet)
            return
        }
        let value = packet.bytes.withUnsafeBytes { acl in
            analyzer.addValue(acl: acl, adapter: packet.adapter, cumulativeDrops: packet.cumulativeDrops).map {
                value in
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: acl[value.value]))
                return (value.link, value.handle, value.kind)
            }
        }
        if let (link, handle, kind) = value {
            self = .value(link: link, handle: handle, kind: kind, bytes: [], time: packet.time)
        } else {
            self = .packet(packet)
        }
    }
}
