public import Devices

/// What live capture does with a device of one family once connected: the
/// characteristics it subscribes to, those it reads once (their values are
/// recorded like notifications, so the family decoder sees them), and the
/// commands it writes to start the data flowing.
///
/// Only characteristics the device actually has are used; a device must
/// have at least one of the profile's notifying characteristics.
///
/// Each family's descriptor carries its profile (``FamilyDescriptor/capture``).
///
/// ```swift
/// let profile = FamilyRegistry.builtIn[.diot]!.capture
/// print(profile.startupWrites.count) // 3: fetch features, channels, rates
/// ```
public struct CaptureProfile: Sendable {
    /// A write to a characteristic.
    public struct Write: Sendable, Hashable {
        /// The characteristic written.
        public var characteristic: CharacteristicUUID
        /// The bytes.
        public var bytes: [UInt8]
        /// `command` (write without response) or `request`.
        public var type: String

        /// Creates a write.
        public init(characteristic: CharacteristicUUID, bytes: [UInt8], type: String = "command") {
            self.characteristic = characteristic
            self.bytes = bytes
            self.type = type
        }
    }

    /// The family.
    public var family: DeviceFamily
    /// Characteristics to subscribe to, where the device offers notify or indicate.
    public var notified: [CharacteristicUUID]
    /// Characteristics read once after each connection (device information,
    /// battery) where the device offers read but not notify.
    public var read: [CharacteristicUUID]
    /// Commands written, in order, once subscribed.
    public var startupWrites: [Write]
    /// Makes the per-connection logic that answers notifications, if the family has any.
    public var makeReaction: (@Sendable () -> any CaptureReaction)?
    /// The characteristics whose notifications the reaction reads; they stay
    /// on `StartNotify`, whose notifications pass through the link's task.
    public var reactionCharacteristics: [CharacteristicUUID]

    /// Creates a profile.
    ///
    /// - Parameters:
    ///   - family: The family.
    ///   - notified: Characteristics to subscribe to.
    ///   - read: Characteristics read once after each connection.
    ///   - startupWrites: Commands written, in order, once subscribed.
    ///   - makeReaction: Makes the per-connection logic that answers notifications.
    ///   - reactionCharacteristics: The characteristics the reaction reads.
    public init(
        family: DeviceFamily, notified: [CharacteristicUUID], read: [CharacteristicUUID] = [],
        startupWrites: [Write] = [], makeReaction: (@Sendable () -> any CaptureReaction)? = nil,
        reactionCharacteristics: [CharacteristicUUID] = []
    ) {
        self.family = family
        self.notified = notified
        self.read = read
        self.startupWrites = startupWrites
        self.makeReaction = makeReaction
        self.reactionCharacteristics = reactionCharacteristics
    }
}
