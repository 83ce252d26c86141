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
    private let only: Int?
    private let indices: [CapturePeer: Int]
    /// Each device's handle table (read per value; copied out of the inventory once).
    private let handleTables: [[UInt16: CharacteristicUUID]]
    /// The last peer looked up and its index (values come in runs of one connection).
    private var lastPeer: CapturePeer?
    private var lastIndex: Int?
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
        self.only = only
        var indices: [CapturePeer: Int] = [:]
        for (index, device) in inventory.devices.enumerated() { indices[device.peer] = index }
        self.indices = indices
        handleTables = inventory.devices.map(\.handles)
    }

    /// The index of `peer`'s device, if it is one of the inventory's.
    private mutating func index(of peer: CapturePeer) -> Int? {
        if let lastPeer, lastPeer == peer { return lastIndex }
        lastPeer = peer
        lastIndex = indices[peer]
        return lastIndex
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
            queue.removeAll(keepingCapacity: true)
            queueStart = 0
            if finished { return nil }
            guard current < readers.count else {
                analyzer.finish(at: lastTime, into: &events)
                convert()
                finished = true
                continue
            }
            let reader = readers[current]
            if let packet = try reader.next() {
                lastTime = max(lastTime, packet.time)
                analyzer.add(packet, into: &events)
                convert()
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
        }
        defer { queueStart += 1 }
        return queue[queueStart]
    }

    private mutating func convert() {
        for event in events {
            switch event {
            case .value(let peer, let handle, let bytes, _, let time):
                guard let index = index(of: peer), only == nil || only == index else { continue }
                let characteristic = handleTables[index][handle] ?? CapturedDevice.standIn(for: handle)
                queue.append(
                    .notification(
                        device: index,
                        RawNotification(
                            characteristic: characteristic,
                            bytes: bytes, receiveTime: time)))
            case .loss(let peer, let time, let count, let reason):
                let index = peer.flatMap { indices[$0] }
                if let only, index != only, index != nil { continue }
                queue.append(.loss(device: index, time: time, count: count, duration: nil, reason: reason))
            case .disconnected(_, let peer, let reason, let time):
                guard let index = indices[peer], only == nil || only == index else { continue }
                let connections = inventory.devices[index].connections
                // A gap until the device connects again; its last disconnection ends its data (no loss).
                guard let next = connections.first(where: { $0.start > time }) else { continue }
                queue.append(
                    .loss(
                        device: index, time: time, count: 0,
                        duration: .nanoseconds(Int64(clamping: next.start - time)),
                        reason: "disconnected (\(Self.reason(reason)))"))
            case .write(let peer, let handle, _, _):
                if let index = indices[peer] { writeCounts[index, default: [:]][handle, default: 0] += 1 }
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
