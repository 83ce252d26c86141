import DBus
import Devices
import Foundation
import Locking
import Testing

@testable import Capture

/// The direct route of `StartNotify` notifications, without a bus: which
/// signals it takes, what it delivers and when.
@Suite struct NotificationRouteTests {
    static let owner = ":1.7"
    static let path = "/org/bluez/hci0/dev_F0_00_00_00_00_01/service0010/char0011"
    static let other = "/org/bluez/hci0/dev_F0_00_00_00_00_01/service0010/char0014"
    static let characteristic = DiotGATT.characteristic(for: DiotChannel(1)!)
    static let otherCharacteristic = DiotGATT.characteristic(for: DiotChannel(2)!)

    /// Collects what the route delivers, in order.
    final class Delivered: Sendable {
        private let delivered = Locked<[RawNotification]>([])
        var notifications: [RawNotification] { delivered.withLock { $0 } }
        var bytes: [[UInt8]] { notifications.map(\.bytes) }
        func append(_ notification: RawNotification) { delivered.withLock { $0.append(notification) } }
    }

    static func route() -> (NotificationRoute, Delivered) {
        let delivered = Delivered()
        return (NotificationRoute(owner: owner) { delivered.append($0) }, delivered)
    }

    /// A `PropertiesChanged` of a characteristic as BlueZ sends it.
    static func changed(
        _ changed: DBusValue, path: String = path, sender: String = owner,
        interface: String = "org.bluez.GattCharacteristic1", member: String = "PropertiesChanged"
    ) -> DBusSignal {
        var signal = DBusSignal(
            path: path, interface: "org.freedesktop.DBus.Properties", member: member,
            arguments: [.string(interface), changed, .strings([])])
        signal.sender = sender
        return signal
    }

    static func value(_ bytes: [UInt8], path: String = path) -> DBusSignal {
        changed(.vardict(["Value": .bytes(bytes)]), path: path)
    }

    @Test(arguments: [[], [0x09], Array(repeating: 0xA5, count: 512)] as [[UInt8]])
    func takesAValueOfARoutedCharacteristic(_ bytes: [UInt8]) {
        let (route, delivered) = Self.route()
        route.add(Self.path, Self.characteristic)
        route.open()
        let before = HostClock.now()
        #expect(route.take(Self.value(bytes)))
        let after = HostClock.now()
        #expect(delivered.notifications.isEmpty)  // until the burst ends
        route.flush()
        #expect(delivered.notifications.count == 1)
        let notification = delivered.notifications[0]
        #expect(notification.bytes == bytes)
        #expect(notification.characteristic == Self.characteristic)
        #expect(notification.receiveTime >= before && notification.receiveTime <= after)
    }

    @Test func leavesEverythingElseToTheStream() {
        let (route, delivered) = Self.route()
        route.add(Self.path, Self.characteristic)
        route.open()
        let left: [DBusSignal] = [
            Self.value([1], path: Self.other),  // not routed
            Self.changed(.vardict(["Value": .bytes([1])]), sender: ":1.8"),  // not bluetoothd
            Self.changed(.vardict(["Value": .bytes([1])]), interface: "org.bluez.Device1"),
            Self.changed(.vardict(["Value": .bytes([1])]), member: "InterfacesAdded"),
            Self.changed(.vardict(["Notifying": .boolean(true)])),  // no Value
            Self.changed(.vardict(["Value": .string("01")])),  // a Value that is not bytes
            Self.changed(.vardict(["Value": .variant(.bytes([1]))])),  // bytes in a second variant
            Self.changed(.vardict(["Value": .array(elementSignature: "ay", [.bytes([1])])])),
            Self.changed(.uint16KeyedVardict([1: .bytes([1])])),  // not an a{sv}
            Self.changed(
                .dictionary(keySignature: "s", valueSignature: "ay", [.init(key: .string("Value"), value: .bytes([1]))])
            ),
            Self.changed(.bytes([1])),
        ]
        for signal in left {
            #expect(!route.take(signal), "took \(signal)")
        }
        var short = Self.value([1])
        short.arguments = [.string("org.bluez.GattCharacteristic1")]
        #expect(!route.take(short))
        short.arguments = []
        #expect(!route.take(short))
        #expect(delivered.notifications.isEmpty)
    }

    @Test func anArrayOfByteValuesIsTakenAsItsBytes() {
        let (route, delivered) = Self.route()
        route.add(Self.path, Self.characteristic)
        route.open()
        #expect(route.take(Self.changed(.vardict(["Value": .array(elementSignature: "y", [.byte(1), .byte(2)])]))))
        route.flush()
        #expect(delivered.bytes == [[1, 2]])
    }

    @Test func theLastValueOfARepeatedKeyCounts() {
        let entries: [DBusDictionaryEntry] = [
            .init(key: .string("Value"), value: .variant(.bytes([1]))),
            .init(key: .string("Notifying"), value: .variant(.boolean(true))),
            .init(key: .string("Value"), value: .variant(.bytes([2]))),
        ]
        let changed = DBusValue.dictionary(keySignature: "s", valueSignature: "v", entries)
        #expect(NotificationRoute.value(in: changed) == [2])
        #expect(NotificationRoute.value(in: changed) == changed.vardict?["Value"]?.bytes)
    }

    @Test func holdsWhatItTakesUntilOpenThenDeliversInOrder() {
        let (route, delivered) = Self.route()
        route.add(Self.path, Self.characteristic)
        route.add(Self.other, Self.otherCharacteristic)
        #expect(route.take(Self.value([1])))
        #expect(route.take(Self.value([2], path: Self.other)))
        #expect(route.take(Self.value([3])))
        #expect(delivered.notifications.isEmpty)
        route.open()
        #expect(delivered.bytes == [[1], [2], [3]])
        #expect(
            delivered.notifications.map(\.characteristic) == [
                Self.characteristic, Self.otherCharacteristic, Self.characteristic,
            ])
        #expect(route.take(Self.value([4])))
        #expect(delivered.bytes == [[1], [2], [3]])
        route.flush()
        #expect(delivered.bytes == [[1], [2], [3], [4]])
        route.open()  // again: nothing more
        #expect(delivered.bytes.count == 4)
    }

    @Test func aHeldCharacteristicWaitsForItsRelease() {
        let (route, delivered) = Self.route()
        route.add(Self.path, Self.characteristic)
        route.open()
        route.add(Self.other, Self.otherCharacteristic, holding: true)
        #expect(route.take(Self.value([1], path: Self.other)))
        #expect(route.take(Self.value([2])))
        #expect(route.take(Self.value([3], path: Self.other)))
        route.flush()
        #expect(delivered.bytes == [[2]])
        route.release(Self.other)
        #expect(delivered.bytes == [[2], [1], [3]])
        #expect(route.take(Self.value([4], path: Self.other)))
        route.flush()
        #expect(delivered.bytes == [[2], [1], [3], [4]])
    }

    @Test func aRemovedCharacteristicIsLeftToTheStreamAndItsHeldValuesDropped() {
        let (route, delivered) = Self.route()
        route.add(Self.path, Self.characteristic)
        route.add(Self.other, Self.otherCharacteristic, holding: true)
        route.open()
        #expect(route.take(Self.value([1], path: Self.other)))
        route.remove(Self.other)
        route.release(Self.other)
        #expect(!route.take(Self.value([2], path: Self.other)))
        #expect(delivered.notifications.isEmpty)
    }

    @Test func aBurstIsDeliveredAtItsEndOrWhenTheRouteCloses() {
        let (route, delivered) = Self.route()
        route.add(Self.path, Self.characteristic)
        route.add(Self.other, Self.otherCharacteristic)
        route.open()
        for index in 0..<5 {
            #expect(route.take(Self.value([UInt8(index)], path: index.isMultiple(of: 2) ? Self.path : Self.other)))
        }
        #expect(delivered.notifications.isEmpty)
        route.flush()
        #expect(delivered.bytes == [[0], [1], [2], [3], [4]])
        route.flush()  // nothing new
        #expect(delivered.notifications.count == 5)
        // Removing a characteristic keeps what the burst took of it; closing delivers it.
        #expect(route.take(Self.value([5], path: Self.other)))
        route.remove(Self.other)
        #expect(route.take(Self.value([6])))
        route.close()
        #expect(delivered.bytes == [[0], [1], [2], [3], [4], [5], [6]])
        route.flush()
        #expect(delivered.notifications.count == 7)
    }

    @Test func aClosedRouteTakesNothingAndDropsWhatItHeld() {
        let (route, delivered) = Self.route()
        route.add(Self.path, Self.characteristic)
        #expect(route.take(Self.value([1])))
        route.close()
        route.open()  // too late: closed stays closed
        #expect(!route.take(Self.value([2])))
        route.add(Self.path, Self.characteristic)
        #expect(!route.take(Self.value([3])))
        #expect(delivered.notifications.isEmpty)
    }

    @Test func deliveriesFromTheBusThreadKeepTheirOrderAcrossOpen() async {
        // The bus thread takes while the link's task opens the route: the
        // held values come first, then the rest, none lost or reordered.
        let (route, delivered) = Self.route()
        route.add(Self.path, Self.characteristic)
        let count = 20_000
        let producer = Thread {
            for index in 0..<count {
                _ = route.take(Self.value([UInt8(index & 0xFF), UInt8(index >> 8 & 0xFF)]))
                if index % 7 == 6 { route.flush() }  // bursts of 7, as the bus thread would end them
            }
            route.flush()
        }
        producer.start()
        try? await Task.sleep(for: .milliseconds(2))
        route.open()
        let deadline = ContinuousClock.now + .seconds(20)
        while delivered.notifications.count < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let indices = delivered.notifications.map { Int($0.bytes[0]) | Int($0.bytes[1]) << 8 }
        #expect(indices == Array(0..<count))
    }
}
