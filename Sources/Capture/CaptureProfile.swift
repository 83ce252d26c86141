public import Devices

/// What live capture does with a device of one family once connected: the
/// characteristics it subscribes to, those it reads once (their values are
/// recorded like notifications, so the family decoder sees them), and the
/// commands it writes to start the data flowing.
///
/// Only characteristics the device actually has are used; a device must
/// have at least one of the profile's notifying characteristics.
///
/// ```swift
/// let profile = CaptureProfile.for(.diot)
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
    var makeReaction: (@Sendable () -> any CaptureReaction)? = nil
    /// The characteristics whose notifications the reaction reads; they stay
    /// on `StartNotify`, whose notifications pass through the link's task.
    var reactionCharacteristics: [CharacteristicUUID] = []

    /// The profile of a family.
    ///
    /// - DIoT: the nine data channels, the three command characteristics
    ///   (their replies are notified), battery, device information, chip id
    ///   and the debug log; on start it asks for the feature settings, the
    ///   channel bindings and the rates (queries only: the device's own
    ///   configuration is recorded, not changed).
    /// - Jacquard: the response, notify and raw-data characteristics; on start
    ///   the v2 handshake of the Jacquard SDKs (Hello, Begin, DeviceInfo, the
    ///   notification queue depth), and gesture mode whenever gear attaches.
    /// - Comodule, Fjorden, Obvious: their profile-v1 characteristics, plus
    ///   battery and device information for Fjorden.
    public static func `for`(_ family: DeviceFamily) -> CaptureProfile {
        switch family {
        case .diot:
            let information = [DiotGATT.manufacturerName, DiotGATT.modelNumber, DiotGATT.hardwareRevision,
                               DiotGATT.firmwareRevision, DiotGATT.softwareRevision]
            return CaptureProfile(
                family: family,
                notified: DiotGATT.dataCharacteristics
                    + [DiotGATT.featuresCommand, DiotGATT.channelsCommand, DiotGATT.ratesCommand,
                       DiotGATT.batteryLevel, DiotGATT.debugLog],
                read: [DiotGATT.batteryLevel, DiotGATT.chipID] + information,
                startupWrites: [DiotCommand.fetchFeatures, .fetchChannels, .fetchRates].map {
                    Write(characteristic: $0.characteristic, bytes: $0.bytes)
                })
        case .jacquard:
            return CaptureProfile(
                family: family,
                notified: [JacquardGATT.response, JacquardGATT.notify, JacquardGATT.rawData],
                read: [],
                startupWrites: JacquardHandshake.writes.map {
                    Write(characteristic: JacquardGATT.command, bytes: $0, type: "request")
                },
                makeReaction: { JacquardGestureMode() },
                reactionCharacteristics: [JacquardGATT.notify])
        case .comodule:
            return CaptureProfile(family: family, notified: [ComoduleGATT.propertyStream], read: [], startupWrites: [])
        case .fjorden:
            let information = (0x2A23...0x2A29).map { CharacteristicUUID(short: UInt16($0)) }
            return CaptureProfile(
                family: family, notified: [FjordenGATT.event, FjordenGATT.batteryLevel],
                read: [FjordenGATT.batteryLevel] + information, startupWrites: [])
        case .obvious:
            return CaptureProfile(family: family, notified: [ObviousGATT.data], read: [], startupWrites: [])
        }
    }
}
