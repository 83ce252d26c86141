package import MCAP
package import ROS2

extension MCAPByteBuffer {
    /// Appends a whole Message record whose data is a CDR message that
    /// `encode` writes straight into this buffer, after the record's header
    /// and the encapsulation header (no copy of the message); returns what
    /// `encode` returns. The record's length is filled in after.
    @inline(__always)
    package mutating func appendMessageRecord<R>(
        channelID: UInt16, sequence: UInt32, logTime: UInt64, publishTime: UInt64,
        encoding encode: (inout CDRWriter) -> R
    ) -> R {
        let start = bytes.count
        bytes.append(addingCapacity: 35) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                let raw = UnsafeMutableRawPointer(buffer.baseAddress!)
                // The length is filled in once the message is encoded.
                Self.storeMessageHeader(
                    at: raw, length: 0, channelID: channelID, sequence: sequence, logTime: logTime,
                    publishTime: publishTime)
                // The CDR encapsulation header: little-endian CDR, no options.
                raw.storeBytes(of: UInt32(0x0000_0100).littleEndian, toByteOffset: 31, as: UInt32.self)
                initialized = 35
            }
        }
        var cdr = CDRWriter(continuing: &bytes)
        let result = encode(&cdr)
        cdr.finish(into: &bytes)
        let length = UInt64(bytes.count &- start &- 9).littleEndian
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: length, toByteOffset: start &+ 1, as: UInt64.self)
        }
        return result
    }
}
