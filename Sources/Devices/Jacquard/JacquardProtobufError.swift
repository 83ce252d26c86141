/// A protobuf wire-format error found by ``JacquardProtobufReader``.
///
/// ```swift
/// let bytes: [UInt8] = [0x80, 0x80]
/// bytes.withUnsafeBytes { buffer in
///     var reader = JacquardProtobufReader(buffer)
///     do { _ = try reader.readVarint() } catch { print(error) } // truncatedVarint
/// }
/// ```
public enum JacquardProtobufError: UInt8, Error, Sendable, Hashable, CaseIterable {
    /// A varint runs past the end of the message.
    case truncatedVarint
    /// A varint has more than 10 bytes.
    case varintTooLong
    /// A varint's 10th byte sets bits beyond 64.
    case varintOverflow
    /// A fixed-size or length-delimited field runs past the end of the message.
    case truncatedField
    /// Wire type 6 or 7.
    case invalidWireType
    /// Wire type 3 or 4 (groups), rejected.
    case groupNotSupported
    /// Field number 0, or beyond 2²⁹ − 1.
    case invalidFieldNumber
}
