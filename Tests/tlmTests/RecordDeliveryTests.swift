import Foundation
import Recording
import TestSupport
import Testing

/// `tlm record --simulate` delivering as Bluetooth LE does (the default) or
/// when each notification is due (`--delivery due`), and its flags.
@Suite struct RecordDeliveryTests {
    /// The log times of DIoT channel 1's raw notifications.
    static func channel1Times(_ directory: String) throws -> [UInt64] {
        let reader = try RecordingReader(directory: directory)
        let topics = reader.topics.filter {
            $0.hasPrefix("/diot/") && $0.hasSuffix("/raw/c_0000d00100001000800000805f9b34fb")
        }
        #expect(topics.count == 1)
        return try reader.messages(topics: topics).map(\.logTime)
    }

    @Test func simulatedDevicesDeliverAtConnectionEventsUnlessDue() throws {
        let ble = temporaryPath()
        let due = temporaryPath()
        defer { for path in [ble, due] { try? FileManager.default.removeItem(atPath: path) } }
        let a = try tlm(
            "record", "--simulate", "--family", "diot", "--connection-interval", "50ms", "--drift", "200",
            "--duration", "2s", "--output", ble)
        #expect(a.status == 0, "\(a.errors)")
        let b = try tlm(
            "record", "--simulate", "--family", "diot", "--delivery", "due", "--duration", "2s", "--output", due)
        #expect(b.status == 0, "\(b.errors)")
        // 50 Hz on one channel: at a 50 ms interval, 2 or 3 notifications per connection event.
        let batched = try Self.channel1Times(ble)
        #expect(batched.count >= 90)
        #expect(Set(batched).count <= batched.count / 2 + 1)
        // Due: one instant each, 20 ms apart.
        let stamped = try Self.channel1Times(due)
        #expect(stamped.count >= 90)
        #expect(Set(stamped).count == stamped.count)
        #expect(zip(stamped, stamped.dropFirst()).allSatisfy { $1 - $0 == 20_000_000 })
    }

    @Test func deliveryFlagsAreCheckedBeforeRecording() throws {
        let output = temporaryPath()
        let short = try tlm("record", "--simulate", "--connection-interval", "5ms", "--output", output)
        #expect(short.status != 0 && short.errors.contains("the connection interval must be 7.5 ms…4 s"))
        let due = try tlm("record", "--simulate", "--delivery", "due", "--drift", "5", "--output", output)
        #expect(due.status != 0 && due.errors.contains("--connection-interval and --drift apply to --delivery ble"))
        let drift = try tlm("record", "--simulate", "--drift", "5000", "--output", output)
        #expect(drift.status != 0 && drift.errors.contains("--drift must be -1000...1000 ppm"))
        let live = try tlm("record", "--device", "C0:FF:EE:00:00:01", "--drift", "5", "--output", output)
        #expect(live.status != 0 && live.errors.contains("apply to simulated devices"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
