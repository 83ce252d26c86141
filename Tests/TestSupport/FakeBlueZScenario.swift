public import Foundation

// The scenario the fake BlueZ plays (`Tests/FakeBlueZ/README.md`). Property names are the
// JSON keys themselves, snake_case included, so a test reads like the format it writes.
// Optional properties left nil are omitted from the JSON and take the fake's defaults.

/// Everything the fake BlueZ serves: an adapter (nil: no adapter at all) and its devices.
public struct FakeBlueZScenario: Codable, Sendable, Equatable {
    public var adapter: Adapter?
    public var devices: [Device]

    public init(adapter: Adapter? = Adapter(), devices: [Device] = []) {
        self.adapter = adapter
        self.devices = devices
    }

    /// `/org/bluez/hci0`.
    public struct Adapter: Codable, Sendable, Equatable {
        public var address: String
        public var name: String?
        public var powered: Bool?
        /// Unconnected devices vanish this long after discovery stops (BlueZ: 30 s); nil: never.
        public var temporary_timeout_ms: Double?

        public init(
            address: String = "00:11:22:33:44:55", name: String? = nil, powered: Bool? = nil,
            temporary_timeout_ms: Double? = nil
        ) {
            self.address = address
            self.name = name
            self.powered = powered
            self.temporary_timeout_ms = temporary_timeout_ms
        }
    }

    /// One peripheral: what it advertises, its GATT database, what it notifies and how it fails.
    public struct Device: Codable, Sendable, Equatable {
        public var address: String
        /// `public` (default) or `random`.
        public var address_type: String?
        public var name: String?
        /// dBm, default -60.
        public var rssi: Int?
        public var tx_power: Int?
        /// ATT MTU for the `MTU` property and AcquireNotify, default 247.
        public var mtu: Int?
        /// Company id (`"0x04F7"` or `"1271"`) → hex bytes.
        public var manufacturer_data: [String: String]?
        /// Service UUID → hex bytes.
        public var service_data: [String: String]?
        /// Advertised service UUIDs (16-bit `"D000"` or 128-bit).
        public var uuids: [String]?
        /// Delays: first advertisement after StartDiscovery (10), link up after Connect (20),
        /// services resolved after link up (20); all scaled by `--time-scale`.
        public var appear_ms: Double?
        public var connect_ms: Double?
        public var resolve_ms: Double?
        /// AcquireNotify socket full: `drop` (default, as BlueZ does) or `wait`.
        public var fd_backpressure: String?
        public var services: [Service]
        public var notifications: [Notification]
        public var on_write: [OnWrite]
        public var faults: [Fault]

        public init(
            address: String, address_type: String? = nil, name: String? = nil, rssi: Int? = nil,
            tx_power: Int? = nil, mtu: Int? = nil, manufacturer_data: [String: String]? = nil,
            service_data: [String: String]? = nil, uuids: [String]? = nil,
            appear_ms: Double? = nil, connect_ms: Double? = nil, resolve_ms: Double? = nil,
            fd_backpressure: String? = nil, services: [Service] = [],
            notifications: [Notification] = [], on_write: [OnWrite] = [], faults: [Fault] = []
        ) {
            self.address = address
            self.address_type = address_type
            self.name = name
            self.rssi = rssi
            self.tx_power = tx_power
            self.mtu = mtu
            self.manufacturer_data = manufacturer_data
            self.service_data = service_data
            self.uuids = uuids
            self.appear_ms = appear_ms
            self.connect_ms = connect_ms
            self.resolve_ms = resolve_ms
            self.fd_backpressure = fd_backpressure
            self.services = services
            self.notifications = notifications
            self.on_write = on_write
            self.faults = faults
        }
    }

    public struct Service: Codable, Sendable, Equatable {
        public var uuid: String
        public var primary: Bool?
        /// First ATT handle (path `serviceXXXX`); default: allocated in order from 0x000a.
        public var handle: Int?
        public var characteristics: [Characteristic]

        public init(uuid: String, primary: Bool? = nil, handle: Int? = nil, characteristics: [Characteristic] = []) {
            self.uuid = uuid
            self.primary = primary
            self.handle = handle
            self.characteristics = characteristics
        }
    }

    public struct Characteristic: Codable, Sendable, Equatable {
        public var uuid: String
        /// BlueZ flags: `read`, `write`, `write-without-response`, `notify`, `indicate`, …
        public var flags: [String]
        /// Initial value (hex), returned by ReadValue.
        public var value: String?
        /// Whether AcquireNotify / `NotifyAcquired` exist; default: when `flags` has `notify`.
        public var acquire_notify: Bool?

        public init(uuid: String, flags: [String], value: String? = nil, acquire_notify: Bool? = nil) {
            self.uuid = uuid
            self.flags = flags
            self.value = value
            self.acquire_notify = acquire_notify
        }
    }

    /// One notification, `at_ms` after streaming starts (every characteristic named in
    /// `notifications` notifying). All zero: as fast as possible.
    public struct Notification: Codable, Sendable, Equatable {
        public var at_ms: Double
        public var char: String
        public var hex: String

        public init(at_ms: Double, char: String, hex: String) {
            self.at_ms = at_ms
            self.char = char
            self.hex = hex
        }

        public init(at_ms: Double, char: String, bytes: [UInt8]) {
            self.init(at_ms: at_ms, char: char, hex: FakeBlueZScenario.hex(bytes))
        }
    }

    /// A write to `char` starting with `prefix` (nil: any) makes the device notify `notify`.
    public struct OnWrite: Codable, Sendable, Equatable {
        public var char: String
        public var prefix: String?
        public var notify: [Reply]

        public init(char: String, prefix: String?, notify: [Reply]) {
            self.char = char
            self.prefix = prefix
            self.notify = notify
        }

        public struct Reply: Codable, Sendable, Equatable {
            public var char: String
            public var hex: String

            public init(char: String, hex: String) {
                self.char = char
                self.hex = hex
            }
        }
    }

    /// A fault; `after` counts notifications of `notifications` sent before it happens.
    public struct Fault: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable {
            case disconnect, restart, in_progress, remove_characteristic, empty_notification
        }

        public var kind: Kind
        public var after: Int?
        public var down_ms: Double?
        /// `in_progress`: how many Connect calls fail (default 1).
        public var count: Int?
        /// `remove_characteristic`, `empty_notification`: which characteristic.
        public var char: String?
        /// `disconnect`: a Connect while down `fail`s (default) or `wait`s until it is over.
        public var connect_during_down: String?

        public init(
            kind: Kind, after: Int? = nil, down_ms: Double? = nil, count: Int? = nil,
            char: String? = nil, connect_during_down: String? = nil
        ) {
            self.kind = kind
            self.after = after
            self.down_ms = down_ms
            self.count = count
            self.char = char
            self.connect_during_down = connect_during_down
        }

        public static func disconnect(after: Int, down_ms: Double, connect_during_down: String? = nil) -> Fault {
            Fault(kind: .disconnect, after: after, down_ms: down_ms, connect_during_down: connect_during_down)
        }

        public static func restart(after: Int, down_ms: Double) -> Fault {
            Fault(kind: .restart, after: after, down_ms: down_ms)
        }

        public static func inProgress(count: Int) -> Fault {
            Fault(kind: .in_progress, count: count)
        }

        public static func removeCharacteristic(_ char: String, after: Int) -> Fault {
            Fault(kind: .remove_characteristic, after: after, char: char)
        }

        public static func emptyNotification(_ char: String, after: Int) -> Fault {
            Fault(kind: .empty_notification, after: after, char: char)
        }
    }

    /// Lower-case hex of bytes, the format of every `hex` field.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The JSON the fake reads.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }
}
