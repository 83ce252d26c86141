/// The Error notification payload (extension 117): a fault the tag reports.
///
/// The `Codable` form: `{"device":…,"subsystem":…,"errorcode":…}`.
///
/// ```swift
/// let error = JacquardErrorNotification(device: 0, subsystem: 3, errorCode: 17)
/// print(error.errorCode) // 17
/// ```
public struct JacquardErrorNotification: Sendable, Hashable, Codable {
    /// `device` (field 1).
    public var device: UInt32
    /// `subsystem` (field 2).
    public var subsystem: UInt32
    /// `errorcode` (field 3).
    public var errorCode: UInt32

    /// Creates an error notification.
    ///
    /// - Parameters:
    ///   - device: The device that failed.
    ///   - subsystem: The subsystem that failed.
    ///   - errorCode: The vendor's error code.
    @inlinable
    public init(device: UInt32, subsystem: UInt32, errorCode: UInt32) {
        self.device = device
        self.subsystem = subsystem
        self.errorCode = errorCode
    }

    enum CodingKeys: String, CodingKey {
        case device, subsystem
        case errorCode = "errorcode"
    }
}
