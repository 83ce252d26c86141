/// Splits a Jacquard protocol message into notification-sized fragments,
/// the way the tag does.
///
/// Each fragment starts with a header byte: 0x80 FIRST, 0x40 LAST and a
/// 6-bit counter (0 on the first fragment, then 1, 2, …, wrapping at 64).
/// The first fragment then holds the message length as an unsigned LEB128
/// varint. A message that fits one fragment has header `C0`.
///
/// ```swift
/// let message: [UInt8] = Array(1...59)
/// let fragments = JacquardFragmenter.fragments(of: message)
/// print(fragments.count, fragments[0].count, fragments[0].prefix(3)) // 1 61 [192, 59, 1]
/// ```
public enum JacquardFragmenter {
    /// The FIRST flag, bit 7 of the header.
    @inlinable
    public static var firstFlag: UInt8 { 0x80 }
    /// The LAST flag, bit 6 of the header.
    @inlinable
    public static var lastFlag: UInt8 { 0x40 }
    /// The counter mask, bits 5…0 of the header.
    @inlinable
    public static var counterMask: UInt8 { 0x3F }

    /// Splits a message into fragments.
    ///
    /// - Parameters:
    ///   - message: The protobuf message.
    ///   - maximumLength: The largest fragment, at least 12 bytes (checked
    ///     with `precondition`); 64 by default.
    /// - Returns: One or more fragments of at most `maximumLength` bytes.
    public static func fragments(
        of message: [UInt8], maximumLength: Int = JacquardGATT.maximumFragmentLength
    )
        -> [[UInt8]]
    {
        precondition(maximumLength >= 12, "a fragment must hold the header and a 10-byte length")
        let length = JacquardProtobufWriter.varint(UInt64(message.count))
        var fragments: [[UInt8]] = []
        var first: [UInt8] = [firstFlag]
        first.append(contentsOf: length)
        var offset = min(message.count, maximumLength - first.count)
        first.append(contentsOf: message[0..<offset])
        fragments.append(first)
        var counter: UInt8 = 1
        while offset < message.count {
            let end = min(message.count, offset + maximumLength - 1)
            var fragment: [UInt8] = [counter & counterMask]
            fragment.append(contentsOf: message[offset..<end])
            fragments.append(fragment)
            offset = end
            counter &+= 1
        }
        fragments[fragments.count - 1][0] |= lastFlag
        return fragments
    }
}
