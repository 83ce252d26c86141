/// The devices of a capture seen only advertising so far, with what they
/// advertised, in bounded memory: at most ``limit`` at once, the ones
/// advertising most recently (a device that connects was advertising just
/// before). Two generations of up to half the limit each: when the recent
/// one is full, the older one is let go and the recent one becomes it; an
/// advertisement from the older one moves its device back to the recent one.
///
/// A device let go is remembered by its address alone (8 bytes), so the
/// devices are still counted exactly and one that connects later is known
/// to have lost its advertisements (``take(_:)``).
struct AdvertiserTable {
    /// The most devices kept with what they advertised.
    let limit: Int
    private var recent: [CapturePeer: AdvertisingData] = [:]
    private var older: [CapturePeer: AdvertisingData] = [:]
    /// The addresses of devices let go and not seen again since.
    private var letGo: Set<UInt64> = []

    init(limit: Int) {
        self.limit = max(2, limit)
    }

    /// Devices let go and not seen since: counted, their advertisements not kept.
    var letGoCount: Int { letGo.count }

    /// The devices kept, with what they advertised.
    var kept: [(peer: CapturePeer, advertising: AdvertisingData)] {
        (recent.map { ($0.key, $0.value) } + older.map { ($0.key, $0.value) })
    }

    /// Adds what `peer` advertised.
    mutating func merge(_ peer: CapturePeer, _ data: AdvertisingData) {
        if let index = recent.index(forKey: peer) {
            recent.values[index].merge(data)
            return
        }
        var advertised = older.removeValue(forKey: peer) ?? AdvertisingData()
        advertised.merge(data)
        if let key = Self.key(peer) { letGo.remove(key) }
        if recent.count >= limit / 2 {
            for peer in older.keys {
                if let key = Self.key(peer) { letGo.insert(key) }
            }
            older = recent
            recent = [:]
        }
        recent[peer] = advertised
    }

    /// Takes `peer` out of the table (it connected, or has values): the peer
    /// as its first advertisement named it (with that address type) and what
    /// it advertised, if kept; and whether it was let go before (its
    /// advertisements were then not kept).
    mutating func take(
        _ peer: CapturePeer
    ) -> (kept: (peer: CapturePeer, advertising: AdvertisingData)?, wasLetGo: Bool) {
        if let index = recent.index(forKey: peer) {
            let (peer, advertising) = recent.remove(at: index)
            return ((peer, advertising), false)
        }
        if let index = older.index(forKey: peer) {
            let (peer, advertising) = older.remove(at: index)
            return ((peer, advertising), false)
        }
        guard let key = Self.key(peer) else { return (nil, false) }
        return (nil, letGo.remove(key) != nil)
    }

    /// The address as a number (`AA:BB:CC:DD:EE:FF` → 0xAABBCCDDEEFF); `nil` without one.
    static func key(_ peer: CapturePeer) -> UInt64? {
        guard let address = peer.address else { return nil }
        var key: UInt64 = 0
        for unit in address.utf8 {
            switch unit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): key = key << 4 | UInt64(unit - UInt8(ascii: "0"))
            case UInt8(ascii: "A")...UInt8(ascii: "F"): key = key << 4 | UInt64(unit - UInt8(ascii: "A") + 10)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): key = key << 4 | UInt64(unit - UInt8(ascii: "a") + 10)
            default: continue
            }
        }
        return key
    }
}
