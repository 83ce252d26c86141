import Devices

/// What a value of a capture is for the extraction: the inventory device
/// of its link's peer and the characteristic of its handle, with the last
/// few looked up kept (values come in runs of one connection and a few
/// handles). A plain value the extractor and a reader's run of values
/// (``CapturePacketReader/readValues(analyzing:resolving:into:upTo:lastTime:)``)
/// update in place.
struct CaptureValueResolver {
    /// Each inventory device's index by its peer.
    let indices: [CapturePeer: Int]
    /// The device extracted, or `nil` for every device.
    let only: Int?
    /// Each device's handle table (read per value; copied out of the inventory once).
    private let handleTables: [[UInt16: CharacteristicUUID]]
    /// The last peer looked up and its index (values come in runs of one connection).
    private var lastPeer: CapturePeer?
    private var lastIndex: Int?
    /// The last value's link, the analyzer's peer epoch then, and its device's index.
    private var valueLink: CaptureLink?
    private var valueEpoch = 0
    private var valueIndex: Int?
    /// The characteristics looked up last.
    private var recentCharacteristics: [(index: Int, handle: UInt16, uuid: CharacteristicUUID)] = []

    /// A resolver of `inventory`'s devices (or only of the device at `only`).
    init(inventory: CaptureInventory, only: Int?) {
        var indices: [CapturePeer: Int] = [:]
        for (index, device) in inventory.devices.enumerated() { indices[device.peer] = index }
        self.indices = indices
        self.only = only
        handleTables = inventory.devices.map(\.handles)
    }

    /// The index of `peer`'s device, if it is one of the inventory's.
    mutating func index(of peer: CapturePeer) -> Int? {
        if let lastPeer, lastPeer == peer { return lastIndex }
        lastPeer = peer
        lastIndex = indices[peer]
        return lastIndex
    }

    /// The index of the device extracted whose value came on `link`
    /// (`analyzer` names the link's peer), or `nil` when it is not extracted.
    @inline(__always)
    mutating func device(on link: CaptureLink, analyzer: inout HCITrafficAnalyzer) -> Int? {
        if link != valueLink || analyzer.peerEpoch != valueEpoch {
            valueIndex = index(of: analyzer.peer(on: link))
            valueLink = link
            valueEpoch = analyzer.peerEpoch
        }
        guard let index = valueIndex, only == nil || only == index else { return nil }
        return index
    }

    /// The characteristic of `handle` of the device at `index` (the last few
    /// looked up are kept, searched in order: values come from a few handles).
    @inline(__always)
    mutating func characteristic(_ index: Int, _ handle: UInt16) -> CharacteristicUUID {
        for known in recentCharacteristics where known.handle == handle && known.index == index { return known.uuid }
        let uuid = handleTables[index][handle] ?? CapturedDevice.standIn(for: handle)
        if recentCharacteristics.count >= 8 { recentCharacteristics.removeFirst() }
        recentCharacteristics.append((index, handle, uuid))
        return uuid
    }

    /// Appends to `batch` the value on `link` of `handle` at `time` whose
    /// bytes are those of the batch's buffer from `start` on, when its
    /// device is extracted; else drops those bytes.
    @inline(__always)
    mutating func append(
        link: CaptureLink, handle: UInt16, time: UInt64, from start: Int, analyzer: inout HCITrafficAnalyzer,
        to batch: inout CaptureOutputBatch
    ) {
        guard let index = device(on: link, analyzer: &analyzer) else {
            batch.bytes.removeSubrange(start...)
            return
        }
        batch.appendNotification(
            device: index, characteristic: characteristic(index, handle), receiveTime: time, from: start)
    }
}
