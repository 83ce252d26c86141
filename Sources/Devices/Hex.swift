/// Lower-case hex digits of bytes, two per byte: how raw bytes (chip ids,
/// serials, advertisements, undecodable payloads) are shown everywhere.
///
/// ```swift
/// print(hex([0x0A, 0x1B, 0xFF])) // 0a1bff
/// ```
package func hex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
}
