/// A protobuf wire type the Jacquard reader accepts. Groups (3, 4) are
/// rejected with ``JacquardProtobufError/groupNotSupported``; 6 and 7 with
/// ``JacquardProtobufError/invalidWireType``.
///
/// ```swift
/// print(JacquardWireType.lengthDelimited.rawValue) // 2
/// ```
public enum JacquardWireType: UInt8, Sendable, Hashable, CaseIterable {
    /// 0: a base-128 varint.
    case varint = 0
    /// 1: 8 bytes, little-endian.
    case fixed64 = 1
    /// 2: a varint length, then that many bytes (strings, bytes, messages).
    case lengthDelimited = 2
    /// 5: 4 bytes, little-endian.
    case fixed32 = 5
}
