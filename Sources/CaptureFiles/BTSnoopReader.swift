/// Reads btsnoop files (Android's `btsnoop_hci.log`, `btmon -w`): a 16-byte
/// header, then records of a 24-byte big-endian header and the packet.
///
/// Datalinks 1001 (HCI without the H4 type byte: the record flags give
/// the type), 1002 (H4) and 2001 (Linux monitor: the flags give the
/// adapter and the monitor opcode).
final class BTSnoopReader: CapturePacketReader {
    /// Microseconds from 0000-01-01 (btsnoop's epoch) to 1970-01-01.
    static let epochOffset: UInt64 = 0x00DC_DDB3_0F2F_8000

    private let source: CaptureByteSource
    private let linkType: CaptureLinkType
    private(set) var endedInsideRecord = false
    private(set) var skippedRecords = 0

    /// Reads the header of `source` (positioned at its start).
    init(source: CaptureByteSource) throws(CaptureFileError) {
        self.source = source
        guard try source.require(16) else {
            throw CaptureFileError(.malformed, "\(source.name): the btsnoop header is cut short")
        }
        let version = source.uint32(at: 8, bigEndian: true)
        guard version == 1 else {
            throw CaptureFileError(.unsupported, "\(source.name): btsnoop version \(version) is not supported (only 1)")
        }
        let datalink = source.uint32(at: 12, bigEndian: true)
        switch datalink {
        case 1001: linkType = .hciUnencapsulated
        case 1002: linkType = .h4
        case 2001: linkType = .linuxMonitor
        default:
            let names: [UInt32: String] = [1003: "HCI BSCP", 1004: "HCI serial (H5)"]
            throw CaptureFileError(
                .unsupported,
                "\(source.name): btsnoop datalink \(datalink)"
                    + (names[datalink].map { " (\($0))" } ?? "")
                    + " is not supported (supported: 1001 HCI UART, 1002 HCI H4, 2001 Linux monitor)")
        }
        source.skip(16)
    }

    func next() throws(CaptureFileError) -> CapturedPacket? {
        while true {
            if try source.isExhausted() { return nil }
            guard try source.require(24) else {
                endedInsideRecord = true
                return nil
            }
            let recordOffset = source.offset
            let originalLength = Int(source.uint32(at: 0, bigEndian: true))
            let includedLength = Int(source.uint32(at: 4, bigEndian: true))
            let flags = source.uint32(at: 8, bigEndian: true)
            let drops = source.uint32(at: 12, bigEndian: true)
            let stamp = source.uint64(at: 16, bigEndian: true)
            guard includedLength <= CaptureByteSource.maximumRecordLength else {
                throw CaptureFileError(
                    .malformed,
                    "\(source.name): the record at byte \(recordOffset) claims "
                        + "\(includedLength) bytes (more than \(CaptureByteSource.maximumRecordLength); the file is damaged)"
                )
            }
            guard try source.require(24 + includedLength) else {
                endedInsideRecord = true
                return nil
            }
            if linkType == .h4, includedLength > 1 {
                // The common case (Android's logs): the H4 type byte, then the packet, copied once.
                let kind = CaptureLinkType.h4Kind(source.peek(24))
                let bytes = source.bytes(at: 25, count: includedLength - 1)
                source.skip(24 + includedLength)
                let direction: CapturedPacket.Direction =
                    kind == .command ? .sent : kind == .event ? .received : flags & 1 == 1 ? .received : .sent
                return CapturedPacket(
                    kind: kind, direction: direction, time: try Self.nanoseconds(stamp), bytes: bytes,
                    originalLength: max(0, max(originalLength, includedLength) - 1), cumulativeDrops: UInt64(drops))
            }
            let bytes = source.bytes(at: 24, count: includedLength)
            source.skip(24 + includedLength)
            let nanoseconds = try Self.nanoseconds(stamp)
            var packet: CapturedPacket
            switch linkType {
            case .hciUnencapsulated:
                // Bit 0: 0 sent, 1 received; bit 1: 0 data, 1 command or event.
                let received = flags & 1 == 1
                let kind: CapturedPacket.Kind = flags & 2 == 0 ? .acl : (received ? .event : .command)
                packet = CapturedPacket(
                    kind: kind, direction: received ? .received : .sent, time: nanoseconds,
                    bytes: bytes, originalLength: max(originalLength, includedLength))
            case .linuxMonitor:
                let (kind, direction) = CaptureLinkType.monitorKind(UInt16(truncatingIfNeeded: flags))
                packet = CapturedPacket(
                    kind: kind, direction: direction, time: nanoseconds,
                    adapter: UInt16(truncatingIfNeeded: flags >> 16), bytes: bytes,
                    originalLength: max(originalLength, includedLength))
            default:
                packet = CaptureLinkType.packet(
                    linkType: .h4, bytes: bytes,
                    originalLength: max(originalLength, includedLength), time: nanoseconds)
                if packet.direction == .unknown { packet.direction = flags & 1 == 1 ? .received : .sent }
            }
            packet.cumulativeDrops = UInt64(drops)
            if packet.kind == .other, bytes.isEmpty, originalLength == 0 {
                skippedRecords += 1
                continue
            }
            return packet
        }
    }

    func next(
        analyzing analyzer: inout HCITrafficAnalyzer, keepingBytes: Bool
    ) throws(CaptureFileError)
        -> CaptureRecord?
    {
        var unused: [UInt8] = []
        return try next(analyzing: &analyzer, values: keepingBytes ? .keep : .drop, appendingTo: &unused)
    }

    func next(
        analyzing analyzer: inout HCITrafficAnalyzer, appendingValueTo bytes: inout [UInt8]
    ) throws(CaptureFileError)
        -> CaptureRecord?
    {
        try next(analyzing: &analyzer, values: .append, appendingTo: &bytes)
    }

    func readValues(
        analyzing analyzer: inout HCITrafficAnalyzer, into survey: inout CaptureSurvey
    ) throws(CaptureFileError) {
        // The records of next(analyzing:keepingBytes:)'s common case, one after another.
        while let (includedLength, drops) = try wholeReceivedACL() {
            let value = source.withBytes(at: 25, count: includedLength - 1) { acl in
                analyzer.addValue(acl: acl, adapter: 0, cumulativeDrops: drops)
            }
            guard let value else { return }
            let time = try Self.nanoseconds(source.uint64(at: 16, bigEndian: true))
            source.skip(24 + includedLength)
            survey.countValue(
                link: value.link, handle: value.handle, kind: value.kind, time: time, bytesRead: source.offset,
                analyzer: &analyzer)
        }
    }

    func readValues(
        analyzing analyzer: inout HCITrafficAnalyzer, resolving resolver: inout CaptureValueResolver,
        into batch: inout CaptureOutputBatch, upTo limit: Int, lastTime: inout UInt64
    ) throws(CaptureFileError) {
        // The records of next(analyzing:appendingValueTo:)'s common case, one after another.
        while batch.count < limit, let (includedLength, drops) = try wholeReceivedACL() {
            let start = batch.bytes.count
            let value = source.withBytes(at: 25, count: includedLength - 1) { acl in
                analyzer.addValue(acl: acl, adapter: 0, cumulativeDrops: drops).map { value in
                    batch.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: acl[value.value]))
                    return (value.link, value.handle)
                }
            }
            guard let (link, handle) = value else { return }
            let time = try Self.nanoseconds(source.uint64(at: 16, bigEndian: true))
            source.skip(24 + includedLength)
            lastTime = max(lastTime, time)
            resolver.append(link: link, handle: handle, time: time, from: start, analyzer: &analyzer, to: &batch)
        }
    }

    /// What becomes of a value's bytes.
    private enum ValueBytes {
        /// Left out (a survey counts values).
        case drop
        /// In the record.
        case keep
        /// Appended to the caller's buffer; the record's are empty.
        case append
    }

    @inline(__always)
    private func next(
        analyzing analyzer: inout HCITrafficAnalyzer, values: ValueBytes, appendingTo sink: inout [UInt8]
    ) throws(CaptureFileError)
        -> CaptureRecord?
    {
        // The common case (Android's logs): a received H4 ACL packet kept
        // whole, read from the buffer; the analyzer takes it when it is one
        // whole notification, and no packet is made.
        if let (includedLength, drops) = try wholeReceivedACL() {
            let value = source.withBytes(at: 25, count: includedLength - 1) { acl in
                analyzer.addValue(acl: acl, adapter: 0, cumulativeDrops: drops).map { value in
                    var bytes: [UInt8] = []
                    switch values {
                    case .drop: break
                    case .keep: bytes = Array(acl[value.value])
                    case .append: sink.append(contentsOf: UnsafeRawBufferPointer(rebasing: acl[value.value]))
                    }
                    return (value.link, value.handle, value.kind, bytes)
                }
            }
            if let (link, handle, kind, bytes) = value {
                let time = try Self.nanoseconds(source.uint64(at: 16, bigEndian: true))
                source.skip(24 + includedLength)
                return .value(link: link, handle: handle, kind: kind, bytes: bytes, time: time)
            }
        }
        guard let packet = try next() else { return nil }
        guard values == .append else {
            return CaptureRecord(packet, analyzing: &analyzer, keepingBytes: values == .keep)
        }
        return CaptureRecord(packet, analyzing: &analyzer, appendingValueTo: &sink)
    }

    /// The record at the read position, when it is the common case (a
    /// received H4 ACL packet kept whole, within bounds, all in the buffer):
    /// its included length and the capture's cumulative drops. `nil` leaves
    /// it to the general path.
    @inline(__always)
    private func wholeReceivedACL() throws(CaptureFileError) -> (length: Int, drops: UInt64)? {
        guard linkType == .h4, try source.require(24) else { return nil }
        let originalLength = Int(source.uint32(at: 0, bigEndian: true))
        let includedLength = Int(source.uint32(at: 4, bigEndian: true))
        let flags = source.uint32(at: 8, bigEndian: true)
        guard flags & 1 == 1, includedLength > 1, includedLength <= CaptureByteSource.maximumRecordLength,
            originalLength <= includedLength, try source.require(24 + includedLength),
            source.peek(24) == 2
        else { return nil }
        return (includedLength, UInt64(source.uint32(at: 12, bigEndian: true)))
    }

    /// A btsnoop timestamp (microseconds since year 0) as nanoseconds since the Unix epoch.
    ///
    /// - Throws: `CaptureFileError` (`.malformed`) for a time past what a
    ///   recording holds (`CapturedPacket.latestTime`).
    @inline(__always)
    private static func nanoseconds(_ stamp: UInt64) throws(CaptureFileError) -> UInt64 {
        let micros = stamp > epochOffset ? stamp - epochOffset : 0
        let (product, overflow) = micros.multipliedReportingOverflow(by: 1000)
        guard !overflow, product <= CapturedPacket.latestTime else { throw CapturedPacket.timeOutOfRange }
        return product
    }
}
