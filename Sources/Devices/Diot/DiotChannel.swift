/// One of the nine DIoT data channels (characteristics D001…D009).
///
/// ```swift
/// let channel = DiotChannel(3)!
/// print(channel.characteristic) // 0000d003-0000-1000-8000-00805f9b34fb
/// print(DiotChannel(10) == nil) // true
/// ```
public struct DiotChannel: RawRepresentable, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// The channel number, 1…9.
    public let rawValue: UInt8

    /// Creates a channel from its number.
    ///
    /// - Parameter rawValue: The channel number; `nil` unless it is in 1…9.
    @inlinable
    public init?(rawValue: UInt8) {
        guard rawValue >= 1, rawValue <= 9 else { return nil }
        self.rawValue = rawValue
    }

    /// Creates a channel from its number.
    ///
    /// - Parameter number: The channel number; `nil` unless it is in 1…9.
    @inlinable
    public init?(_ number: Int) {
        guard number >= 1, number <= 9 else { return nil }
        self.rawValue = UInt8(truncatingIfNeeded: number)
    }

    /// Creates a channel without checking; `rawValue` must be in 1…9.
    @inlinable
    init(unchecked rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Channels 1…9 in order.
    public static let allCases: [DiotChannel] = (1...9).map { DiotChannel(unchecked: $0) }

    /// The data characteristic that notifies this channel (D001…D009).
    public var characteristic: CharacteristicUUID {
        DiotGATT.characteristic(for: self)
    }

    /// `"ch<number>"`, for example `"ch1"`.
    public var description: String { "ch\(rawValue)" }

    /// Orders channels by number.
    public static func < (lhs: DiotChannel, rhs: DiotChannel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
