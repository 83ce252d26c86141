package import MCAP

/// Writes the end of a segment — DataEnd, the summary (Schemas, Channels,
/// Statistics, Chunk Indexes, Metadata Indexes, grouped by opcode), the
/// Summary Offsets, the Footer and the closing magic — for the writer closing
/// a segment and for `recover` closing one a crash left open.
package enum SegmentTail {
    /// The tail's bytes.
    ///
    /// - Parameters:
    ///   - base: File offset where the tail starts (the DataEnd record).
    ///   - dataCRC: CRC-32 of every byte before `base`.
    ///   - chunkIndexes: Encoded Chunk Index records, in file order.
    ///   - metadataIndexes: Encoded Metadata Index records, in file order.
    ///   - attachmentIndexes: Encoded Attachment Index records, in file order.
    package static func bytes(
        base: UInt64, dataCRC: UInt32, schemas: [MCAPRecord.Schema], channels: [MCAPRecord.Channel],
        statistics: MCAPRecord.Statistics, chunkIndexes: [UInt8], metadataIndexes: [UInt8],
        attachmentIndexes: [UInt8] = []
    ) -> [UInt8] {
        var encoded: [(UInt8, [UInt8])] = []
        func group(_ opcode: MCAPOpcode, _ body: (inout MCAPByteBuffer) -> Void) {
            var out = MCAPByteBuffer()
            body(&out)
            encoded.append((opcode.rawValue, out.bytes))
        }
        group(.schema) { out in
            for schema in schemas.sorted(by: { $0.id < $1.id }) { MCAPRecord.schema(schema).encode(into: &out) }
        }
        group(.channel) { out in
            for channel in channels.sorted(by: { $0.id < $1.id }) { MCAPRecord.channel(channel).encode(into: &out) }
        }
        group(.statistics) { out in MCAPRecord.statistics(statistics).encode(into: &out) }
        encoded.append((MCAPOpcode.chunkIndex.rawValue, chunkIndexes))
        encoded.append((MCAPOpcode.attachmentIndex.rawValue, attachmentIndexes))
        encoded.append((MCAPOpcode.metadataIndex.rawValue, metadataIndexes))
        return bytes(base: base, dataCRC: dataCRC, groups: encoded)
    }

    /// The tail's bytes, with summary groups given as encoded records of one
    /// opcode each (Attachment Indexes too), in the order given (empty groups are left out).
    ///
    /// - Parameters:
    ///   - base: File offset where the tail starts (the DataEnd record).
    ///   - dataCRC: CRC-32 of every byte before `base` (0: not computed).
    package static func bytes(base: UInt64, dataCRC: UInt32, groups: [(UInt8, [UInt8])]) -> [UInt8] {
        var tail = MCAPByteBuffer(capacity: 4096 + groups.reduce(0) { $0 + $1.1.count })
        MCAPRecord.dataEnd(.init(dataSectionCRC: dataCRC)).encode(into: &tail)
        let summaryStart = base + UInt64(tail.count)
        var offsets: [MCAPRecord.SummaryOffset] = []
        for (opcode, records) in groups where !records.isEmpty {
            offsets.append(
                .init(
                    groupOpcode: opcode, groupStart: base + UInt64(tail.count),
                    groupLength: UInt64(records.count)))
            tail.append(raw: records)
        }
        let summaryOffsetStart = base + UInt64(tail.count)
        for offset in offsets { MCAPRecord.summaryOffset(offset).encode(into: &tail) }
        // The summary CRC covers the summary's first byte through the
        // Footer's summary_offset_start field (opcode and length included).
        var footer = MCAPByteBuffer()
        footer.append(MCAPOpcode.footer.rawValue)
        footer.append(UInt64(20))
        footer.append(summaryStart)
        footer.append(summaryOffsetStart)
        var crc = CRC32()
        tail.bytes.withUnsafeBytes { crc.update(UnsafeRawBufferPointer(rebasing: $0[Int(summaryStart - base)...])) }
        crc.update(footer.bytes)
        MCAPRecord.footer(
            .init(summaryStart: summaryStart, summaryOffsetStart: summaryOffsetStart, summaryCRC: crc.value)
        )
        .encode(into: &tail)
        tail.append(raw: mcapMagic)
        return tail.bytes
    }
}
