/// A lake's 64-bit digests (not cryptographic: they tell copies apart, they
/// do not guard against an adversary): ``hash(_:)`` of bytes (a file, a
/// schema, a name), and, as a value, the content digest of a recording's
/// messages.
///
/// The content digest is the sum of one hash per message (its topic, both
/// times, its sequence number and its payload), so it does not depend on
/// the order the messages are written in: the same recording gives the
/// same digest however it is read.
///
/// ```swift
/// var digest = LakeDigest()
/// digest.add(topic: LakeDigest.hash(Array("/a".utf8)), logTime: 1, publishTime: 1, sequence: 0, payload: bytes)
/// print(digest.text)  // 16 hex digits
/// ```
package struct LakeDigest: Sendable, Hashable {
    /// The sum of the messages' hashes.
    package private(set) var sum: UInt64 = 0
    /// The messages added.
    package private(set) var count: UInt64 = 0

    package init() {}

    /// The digest as 16 lowercase hex digits (the message count folded in).
    package var text: String { Self.hex(Self.mix(sum ^ Self.mix(count &+ 0x9E37_79B9_7F4A_7C15))) }

    /// Adds one message.
    @inline(__always)
    package mutating func add(
        topic: UInt64, logTime: UInt64, publishTime: UInt64, sequence: UInt32, payload: UnsafeRawBufferPointer
    ) {
        var state = Self.mix(topic ^ logTime)
        state = Self.mix(state ^ publishTime)
        state = Self.mix(state ^ UInt64(sequence))
        sum &+= Self.mix(state ^ Self.hash(payload))
        count += 1
    }

    /// The hash of `bytes`: FNV-1a over 8-byte words, then a final mix.
    package static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// The hash of `bytes`: FNV-1a over 8-byte words (the tail byte by byte), then a final mix.
    @inline(__always)
    package static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var state: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            state =
                (state ^ UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                &* 0x0000_0100_0000_01B3
            state ^= state >> 29
            offset += 8
        }
        while offset < bytes.count {
            state = (state ^ UInt64(bytes[offset])) &* 0x0000_0100_0000_01B3
            offset += 1
        }
        return mix(state)
    }

    /// A 64-bit finalizer (MurmurHash3's fmix64): every input bit changes about half the output bits.
    @inline(__always)
    package static func mix(_ value: UInt64) -> UInt64 {
        var value = value
        value ^= value >> 33
        value &*= 0xFF51_AFD7_ED55_8CCD
        value ^= value >> 33
        value &*= 0xC4CE_B9FE_1A85_EC53
        value ^= value >> 33
        return value
    }

    /// `value` as 16 lowercase hex digits.
    package static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
