package import Devices

/// Outputs of an extraction in flat storage, for a reader thread that hands
/// them to a recorder in batches: each notification is an entry of plain
/// values whose bytes lie in one buffer shared by the batch, so a batch of
/// thousands of notifications is three allocations, not one per
/// notification, and the recorder copies each value into a notification it
/// reuses (``load(_:into:)``). Other outputs (losses, values the analyzer
/// reassembled) are kept as they are, in order among the entries.
package struct CaptureOutputBatch: Sendable {
    /// One output: a notification in the batch's buffer, or one of ``others``.
    package struct Entry: Sendable {
        /// The notification's device in ``CaptureInventory/devices``; -1
        /// when the output is `others[start]`.
        package var device: Int
        /// The characteristic that notified.
        package var characteristic: CharacteristicUUID
        /// Host receive time, nanoseconds since the Unix epoch.
        package var receiveTime: UInt64
        /// Where the value starts in ``bytes`` (or the index in ``others``).
        package var start: Int
        /// The value's length in bytes.
        package var count: Int
    }

    /// The outputs, in capture order.
    package var entries: [Entry] = []
    /// The notifications' values, back to back.
    package var bytes: [UInt8] = []
    /// The outputs that are not a notification in ``bytes``.
    package var others: [CaptureOutput] = []

    /// An empty batch.
    package init() {}

    /// An empty batch with room for `count` outputs of `byteCount` value bytes in all.
    package init(capacity count: Int, byteCount: Int) {
        entries.reserveCapacity(count)
        bytes.reserveCapacity(byteCount)
    }

    /// The number of outputs.
    package var count: Int { entries.count }

    /// Whether the batch holds no output.
    package var isEmpty: Bool { entries.isEmpty }

    /// Appends an output as it is.
    package mutating func append(_ output: CaptureOutput) {
        entries.append(
            Entry(
                device: -1, characteristic: CharacteristicUUID(high: 0, low: 0), receiveTime: 0, start: others.count,
                count: 0))
        others.append(output)
    }

    /// Appends a notification of `device` whose value is the bytes of
    /// ``bytes`` from `start` to the end.
    @inline(__always)
    mutating func appendNotification(
        device: Int, characteristic: CharacteristicUUID, receiveTime: UInt64, from start: Int
    ) {
        entries.append(
            Entry(
                device: device, characteristic: characteristic, receiveTime: receiveTime, start: start,
                count: bytes.count - start))
    }

    /// Sets `notification` to the notification of `entry` (one with
    /// `device >= 0`), reusing the storage of its bytes when nothing else holds it.
    @inline(__always)
    package func load(_ entry: Entry, into notification: inout RawNotification) {
        notification.characteristic = entry.characteristic
        notification.receiveTime = entry.receiveTime
        notification.bytes.removeAll(keepingCapacity: true)
        bytes.withUnsafeBufferPointer { all in
            notification.bytes.append(
                contentsOf: UnsafeBufferPointer(rebasing: all[entry.start..<(entry.start + entry.count)]))
        }
    }

    /// The output of `entry` as a ``CaptureOutput``.
    package func output(_ entry: Entry) -> CaptureOutput {
        if entry.device < 0 { return others[entry.start] }
        return .notification(
            device: entry.device,
            RawNotification(
                characteristic: entry.characteristic, bytes: Array(bytes[entry.start..<(entry.start + entry.count)]),
                receiveTime: entry.receiveTime))
    }
}
