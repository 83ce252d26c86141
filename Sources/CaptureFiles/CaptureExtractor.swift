import Devices

/// The second pass over a capture: its devices' values as notifications
/// (each handle's characteristic from the inventory), in capture order,
/// and loss — drops the capture marks, records it cut, frames never
/// completed, malformed ATT PDUs, disconnections (as gaps until the next
/// connection) and a file ending inside a record.
///
/// Not `Sendable`: it belongs to the task that reads it.
public struct CaptureExtractor {
    private let readers: [CaptureFileReader]
    private let inventory: CaptureInventory
    /// Each value's device and characteristic (and which device is extracted).
    private var resolver: CaptureValueResolver
    /// The device extracted, or `nil` for every device.
    private var only: Int? { resolver.only }
    private var current = 0
    private var analyzer = HCITrafficAnalyzer()
    private var events: [CaptureEvent] = []
    private var queue: [CaptureOutput] = []
    private var queueStart = 0
    private var lastTime: UInt64 = 0
    private var finished = false
    private var bytesBefore: UInt64 = 0
    /// Writes to the devices, per device index and handle (not recorded).
    public private(set) var writeCounts: [Int: [UInt16: Int]] = [:]

    init(readers: [CaptureFileReader], inventory: CaptureInventory, only: Int?) {
        self.readers = readers
        self.inventory = inventory
        resolver = CaptureValueResolver(inventory: inventory, only: only)
    }

    /// Bytes read so far, every file.
    public var bytesRead: UInt64 {
        bytesBefore + (current < readers.count ? readers[current].bytesRead : 0)
    }

    /// The next notification or loss, or `nil` at the end of the last file.
    ///
    /// - Throws: ``CaptureFileError`` for a damaged file.
    public mutating func next() throws(CaptureFileError) -> CaptureOutput? {
        while queueStart == queue.count {
            switch try step() {
            case .output(let output): return output
            case .more: continue
            case .finished: return nil
            }
        }
        defer { queueStart += 1 }
        return queue[queueStart]
    }

    /// Appends the next notifications and losses to `outputs` until it holds
    /// `limit` of them or the last file ends: what as many ``next()`` calls
    /// return, without handling each twice.
    ///
    /// - Returns: `false` when the last file ended (its outputs are appended).
    /// - Throws: ``CaptureFileError`` for a damaged file; the outputs before
    ///   the damage are appended.
    public mutating func next(into outputs: inout [CaptureOutput], upTo limit: Int) throws(CaptureFileError) -> Bool {
        while outputs.count < limit {
            if queueStart < queue.count {
                outputs.append(queue[queueStart])
                queueStart += 1
                continue
            }
            switch try step() {
            case .output(let output): outputs.append(output)
            case .more: continue
            case .finished: return false
            }
        }
        return true
    }

    /// Appends the next outputs to `batch` until it holds `limit` of them or
    /// the last file ends: ``next(into:upTo:)`` with the notifications'
    /// values in the batch's one buffer.
    ///
    /// - Returns: `false` when the last file ended (its outputs are appended).
    /// - Throws: ``CaptureFileError`` for a damaged file; the outputs before
    ///   the damage are appended.
    package mutating func next(into batch: inout CaptureOutputBatch, upTo limit: Int) throws(CaptureFileError) -> Bool {
        while batch.count < limit {
            if queueStart < queue.count {
                batch.append(queue[queueStart])
                queueStart += 1
                continue
            }
            if current < readers.count, !finished {
                // The run of values from here, read in one loop.
                try readers[current].readValues(
                    analyzing: &analyzer, resolving: &resolver, into: &batch, upTo: limit, lastTime: &lastTime)
                if batch.count >= limit { break }
            }
            switch try step(into: &batch, flat: true) {
            case .output(let output): batch.append(output)
            case .more: continue
            case .finished: return false
            }
        }
        return true
    }

    /// What one step of reading gave.
    private enum Step {
        /// A value's notification (the common case: not queued).
        case output(CaptureOutput)
        /// Nothing, or outputs in the queue.
        case more
        /// The last file ended and every output was taken.
        case finished
    }

    /// Reads one packet, or ends a file or the capture (call it when the
    /// queue is taken): a packet that is one notification of a device
    /// extracted is returned, other outputs are queued.
    private mutating func step() throws(CaptureFileError) -> Step {
        var unused = CaptureOutputBatch()
        return try step(into: &unused, flat: false)
    }

    /// ``step()``; with `flat`, a packet that is one notification of a
    /// device extracted is appended to `batch` (its value to the batch's
    /// buffer) and `.more` returned.
    @inline(__always)
    private mutating func step(into batch: inout CaptureOutputBatch, flat: Bool) throws(CaptureFileError) -> Step {
        queue.removeAll(keepingCapacity: true)
        queueStart = 0
        if finished { return .finished }
        guard current < readers.count else {
            analyzer.finish(at: lastTime, into: &events)
            convert()
            finished = true
            return .more
        }
        let reader = readers[current]
        let start = batch.bytes.count
        let read =
            flat
            ? try reader.next(analyzing: &analyzer, appendingValueTo: &batch.bytes)
            : try reader.next(analyzing: &analyzer, keepingBytes: true)
        if let record = read {
            lastTime = max(lastTime, record.time)
            switch record {
            case .value(let link, let handle, _, let bytes, let time):
                // Most packets are one whole notification: converted without an event.
                if flat {
                    resolver.append(
                        link: link, handle: handle, time: time, from: start, analyzer: &analyzer, to: &batch)
                    return .more
                }
                guard let index = resolver.device(on: link, analyzer: &analyzer) else { return .more }
                return .output(
                    .notification(
                        device: index,
                        RawNotification(
                            characteristic: resolver.characteristic(index, handle), bytes: bytes, receiveTime: time)))
            case .packet(let packet):
                analyzer.add(packet, into: &events)
                convert()
            }
        } else {
            if reader.endedInsideRecord, only == nil {
                queue.append(
                    .loss(
                        device: nil, time: lastTime, count: 1, duration: nil,
                        reason: "\(reader.name) ends inside a record (the capture was cut short)"))
            }
            bytesBefore += reader.size
            current += 1
        }
        return .more
    }

    private mutating func convert() {
        for event in events {
            switch event {
            case .value(let peer, let handle, let bytes, _, let time):
                guard let index = resolver.index(of: peer), only == nil || only == index else { continue }
                queue.append(
                    .notification(
                        device: index,
                        RawNotification(
                            characteristic: resolver.characteristic(index, handle),
                            bytes: bytes, receiveTime: time)))
            case .loss(let peer, let time, let count, let reason):
                let index = peer.flatMap { resolver.indices[$0] }
                if let only, index != only, index != nil { continue }
                queue.append(.loss(device: index, time: time, count: count, duration: nil, reason: reason))
            case .disconnected(_, let peer, let reason, let time):
                guard let index = resolver.indices[peer], only == nil || only == index else { continue }
                let connections = inventory.devices[index].connections
                // A gap until the device connects again; its last disconnection ends its data (no loss).
                guard let next = connections.first(where: { $0.start > time }) else { continue }
                queue.append(
                    .loss(
                        device: index, time: time, count: 0,
                        duration: .nanoseconds(Int64(clamping: next.start - time)),
                        reason: "disconnected (\(Self.reason(reason)))"))
            case .write(let peer, let handle, _, _):
                if let index = resolver.indices[peer] { writeCounts[index, default: [:]][handle, default: 0] += 1 }
            default:
                break
            }
        }
        events.removeAll(keepingCapacity: true)
    }

    /// The name of an HCI disconnection reason.
    static func reason(_ code: UInt8) -> String {
        let names: [UInt8: String] = [
            0x08: "connection timeout", 0x13: "remote user terminated the connection",
            0x14: "remote device terminated: low resources", 0x15: "remote device terminated: power off",
            0x16: "connection terminated by the local host", 0x22: "LL response timeout",
            0x3B: "unacceptable connection parameters", 0x3D: "MIC failure",
            0x3E: "connection failed to be established",
        ]
        return "reason 0x" + hexByte(code) + (names[code].map { ": " + $0 } ?? "")
    }
}
