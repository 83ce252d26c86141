/// A growable little-endian byte buffer with the MCAP primitive encodings:
/// fixed-width integers, `u32`-prefixed strings and byte arrays, and
/// `u32`-byte-length-prefixed maps and arrays.
///
/// Writers keep one buffer per purpose and reuse its capacity
/// (`removeAll(keepingCapacity:)`), so steady-state writing does not allocate.
package struct MCAPByteBuffer: Sendable {
    /// The encoded bytes.
    package var bytes: [UInt8] = []

    package init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// The number of bytes written so far.
    @inline(__always) package var count: Int { bytes.count }

    package mutating func removeAll(keepingCapacity: Bool = true) {
        bytes.removeAll(keepingCapacity: keepingCapacity)
    }

    @inline(__always) package mutating func append(_ value: UInt8) {
        bytes.append(value)
    }

    @inline(__always) package mutating func append(_ value: UInt16) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always) package mutating func append(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always) package mutating func append(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends raw bytes with no length prefix.
    @inline(__always) package mutating func append(raw: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: raw)
    }

    /// Appends a whole Message record (opcode, length, header fields, data):
    /// the writer's hot path. The record is written straight into the
    /// buffer's new tail (`append(addingCapacity:)`): its header field by
    /// field, a short message's data a word at a time (not by a call to
    /// `memmove`), a longer one's in one copy.
    @inline(__always)
    package mutating func appendMessageRecord(
        channelID: UInt16, sequence: UInt32, logTime: UInt64, publishTime: UInt64, payload: UnsafeRawBufferPointer
    ) {
        let count = payload.count
        bytes.append(addingCapacity: 31 &+ count) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                let raw = UnsafeMutableRawPointer(buffer.baseAddress!)
                Self.storeMessageHeader(
                    at: raw, length: UInt64(22 &+ count), channelID: channelID, sequence: sequence, logTime: logTime,
                    publishTime: publishTime)
                if let source = payload.baseAddress {
                    let target = raw + 31
                    if count > 64 {
                        target.copyMemory(from: source, byteCount: count)
                    } else {
                        var offset = 0
                        while offset &+ 8 <= count {
                            target.storeBytes(
                                of: source.loadUnaligned(fromByteOffset: offset, as: UInt64.self),
                                toByteOffset: offset, as: UInt64.self)
                            offset &+= 8
                        }
                        while offset < count {
                            target.storeBytes(
                                of: source.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset,
                                as: UInt8.self)
                            offset &+= 1
                        }
                    }
                }
                initialized = 31 &+ count
            }
        }
    }

    /// Stores a Message record's 31-byte header (opcode, record length,
    /// channel, sequence, log and publish time) at `raw`.
    @inline(__always)
    package static func storeMessageHeader(
        at raw: UnsafeMutableRawPointer, length: UInt64, channelID: UInt16, sequence: UInt32, logTime: UInt64,
        publishTime: UInt64
    ) {
        raw.storeBytes(of: MCAPOpcode.message.rawValue, toByteOffset: 0, as: UInt8.self)
        raw.storeBytes(of: length.littleEndian, toByteOffset: 1, as: UInt64.self)
        raw.storeBytes(of: channelID.littleEndian, toByteOffset: 9, as: UInt16.self)
        raw.storeBytes(of: sequence.littleEndian, toByteOffset: 11, as: UInt32.self)
        raw.storeBytes(of: logTime.littleEndian, toByteOffset: 15, as: UInt64.self)
        raw.storeBytes(of: publishTime.littleEndian, toByteOffset: 23, as: UInt64.self)
    }

    /// Appends raw bytes with no length prefix.
    @inline(__always) package mutating func append(raw: some Collection<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// Appends an MCAP `String`: a `u32` byte length, then UTF-8 bytes.
    package mutating func appendString(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            append(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends MCAP `Bytes` with a `u32` length prefix.
    package mutating func appendBytes32(_ value: some Collection<UInt8>) {
        append(UInt32(value.count))
        bytes.append(contentsOf: value)
    }

    /// Appends an MCAP `Map<string, string>`: a `u32` byte length of the
    /// entries, then key/value string pairs, in key order so output is stable.
    package mutating func appendStringMap(_ map: [String: String]) {
        let lengthAt = reserveLength32()
        for key in map.keys.sorted() {
            appendString(key)
            appendString(map[key]!)
        }
        patchLength32(at: lengthAt)
    }

    /// Reserves a `u32` length slot and returns its position, for a prefix
    /// that is only known once the following content has been written.
    package mutating func reserveLength32() -> Int {
        let at = bytes.count
        append(UInt32(0))
        return at
    }

    /// Reserves a `u64` length slot and returns its position.
    package mutating func reserveLength64() -> Int {
        let at = bytes.count
        append(UInt64(0))
        return at
    }

    /// Writes, at a slot from ``reserveLength32()``, the byte count from the end
    /// of that slot to the end of the buffer.
    package mutating func patchLength32(at position: Int) {
        let length = UInt32(bytes.count - position - 4)
        patch(length, at: position)
    }

    /// Writes, at a slot from ``reserveLength64()``, the byte count from the end
    /// of that slot to the end of the buffer.
    package mutating func patchLength64(at position: Int) {
        let length = UInt64(bytes.count - position - 8)
        patch(length, at: position)
    }

    /// Overwrites bytes at `position` with a little-endian integer.
    package mutating func patch<T: FixedWidthInteger>(_ value: T, at position: Int) {
        withUnsafeBytes(of: value.littleEndian) { source in
            bytes.withUnsafeMutableBytes { target in
                target.baseAddress!.advanced(by: position)
                    .copyMemory(from: source.baseAddress!, byteCount: source.count)
            }
        }
    }

    /// Starts a record: writes the opcode and a `u64` length slot, returns the
    /// slot to pass to ``endRecord(_:)``.
    package mutating func beginRecord(_ opcode: MCAPOpcode) -> Int {
        append(opcode.rawValue)
        return reserveLength64()
    }

    /// Ends a record started with ``beginRecord(_:)`` by patching its length.
    package mutating func endRecord(_ lengthSlot: Int) {
        patchLength64(at: lengthSlot)
    }
}
