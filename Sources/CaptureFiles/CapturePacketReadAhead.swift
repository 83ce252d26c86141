import Foundation

/// The packets of capture files read on a thread of their own, in batches,
/// ahead of the consumer: the survey analyses one batch while the next is
/// read, so the two halves of the first pass run on two cores. At most
/// ``maximumBatches`` of ``batchSize`` packets wait (bounded memory; a full
/// queue stops the reader until the consumer takes a batch). Packets come in
/// file order, and an error of a file after the packets read before it.
///
/// The consumer calls ``next()`` until it returns `nil`, and ``cancel()``
/// when it stops early (the reader thread then ends at its next batch).
final class CapturePacketReadAhead: @unchecked Sendable {
    /// Packets of one file, in order.
    struct Batch {
        /// The file's position in the readers.
        var file: Int
        var packets: [CapturedPacket]
        /// The file's bytes read after these packets.
        var bytesRead: UInt64
        /// The file ended with these packets.
        var fileEnded: Bool
        /// When `fileEnded`: the file ends inside a record.
        var endedInsideRecord = false
        /// When `fileEnded`: the records of the file that were skipped (not Bluetooth HCI).
        var skippedRecords = 0
    }

    /// Packets per batch.
    static let batchSize = 4096
    /// Batches read and not yet taken before the reader waits.
    static let maximumBatches = 4

    private let readers: [CaptureFileReader]
    private let queue = ReadAheadQueue<Batch>(capacity: maximumBatches)

    /// Starts reading `readers`, one after the other (they are the thread's from now on).
    init(readers: [CaptureFileReader]) {
        self.readers = readers
        let thread = Thread { [self] in read() }
        thread.name = "tlm-survey-read"
        thread.start()
    }

    /// The next batch, or `nil` after the last.
    ///
    /// - Throws: ``CaptureFileError`` for a damaged file, after the packets read before the damage.
    func next() throws(CaptureFileError) -> Batch? {
        try queue.next()
    }

    /// Stops the reader (the consumer stopped early).
    func cancel() {
        queue.cancel()
    }

    private func read() {
        var packets: [CapturedPacket] = []
        packets.reserveCapacity(Self.batchSize)
        var error: CaptureFileError?
        files: for (file, reader) in readers.enumerated() {
            do throws(CaptureFileError) {
                while let packet = try reader.next() {
                    packets.append(packet)
                    if packets.count == Self.batchSize {
                        let batch = Batch(file: file, packets: packets, bytesRead: reader.bytesRead, fileEnded: false)
                        guard queue.hand(batch) else { return }
                        packets.removeAll(keepingCapacity: true)
                    }
                }
                let batch = Batch(
                    file: file, packets: packets, bytesRead: reader.bytesRead, fileEnded: true,
                    endedInsideRecord: reader.endedInsideRecord, skippedRecords: reader.skippedRecords)
                guard queue.hand(batch) else { return }
                packets.removeAll(keepingCapacity: true)
            } catch let caught {
                // What was read before the error is analysed first.
                if !packets.isEmpty {
                    _ = queue.hand(Batch(file: file, packets: packets, bytesRead: reader.bytesRead, fileEnded: false))
                }
                error = caught
                break files
            }
        }
        queue.finish(error)
    }
}
