import Devices
import Testing

@Suite struct ComoduleSimulatorTests {
    @Test func decodedNotificationsEqualTheGroundTruth() {
        var simulator = ComoduleSimulator(seed: 31)
        let decoder = ComoduleDecoder()
        var counts = (frames: 0, malformed: 0)
        var previous = Duration.zero
        for _ in 0..<20_000 {
            let notification = simulator.next()
            #expect(notification.offset >= previous)
            previous = notification.offset
            do {
                let frame = try decoder.decode(notification.rawNotification(startTime: 0))
                #expect(frame == notification.expected, "\(notification.bytes)")
                counts.frames += 1
            } catch {
                #expect(notification.isMalformed, "\(notification.bytes): \(error)")
                counts.malformed += 1
            }
        }
        #expect(counts.malformed > 100)
        #expect(counts.frames > 19_000)
    }

    @Test func sameSeedGivesTheSameBytes() {
        var first = ComoduleSimulator(seed: 17)
        var second = ComoduleSimulator(seed: 17)
        #expect(first.motorSerial == second.motorSerial)
        for _ in 0..<5_000 {
            #expect(first.next() == second.next())
        }
        var other = ComoduleSimulator(seed: 18)
        #expect(other.motorSerial != first.motorSerial)
        let a = (0..<500).map { _ in other.next().bytes }
        let b = (0..<500).map { _ in first.next().bytes }
        #expect(a != b)
    }

    @Test func startsLockedWithEveryPropertyThenUnlocksWithWriteAcknowledgements() throws {
        var simulator = ComoduleSimulator(seed: 2, configuration: .clean)
        let snapshot = (0..<8).map { _ in simulator.next() }
        #expect(snapshot.allSatisfy { $0.offset == .zero })
        #expect(
            snapshot.compactMap(\.expected?.identifier) == [
                "motor_serial", "locked", "lights", "assist_level", "state_of_charge", "odometer",
                "battery_temperature", "speed",
            ]
        )
        #expect(snapshot[0].expected?.value == .raw(simulator.motorSerial))
        #expect(snapshot[1].expected?.value == .state(index: 1, identifier: "locked"))
        #expect(snapshot[4].expected?.value == .range(86))
        #expect(snapshot[5].expected?.value == .range(12_345 * 0.1))
        let unlock = simulator.next()
        #expect(unlock.expected?.kind == .writeAcknowledged)
        #expect(unlock.expected?.value == .state(index: 0, identifier: "unlocked"))
        #expect(unlock.offset >= .seconds(3) && unlock.offset < .seconds(4))
    }

    @Test func aRideIsPhysicallyConsistent() throws {
        var simulator = ComoduleSimulator(seed: 4, configuration: .clean)
        var speeds: [Double] = []
        var odometer: [Double] = []
        var charge: [Double] = []
        var temperatures: [Double] = []
        var lights: Set<String> = []
        var locks: [String] = []
        var assist: Set<Double> = []
        var errors = 0
        var acknowledgements = 0
        while true {
            let notification = simulator.next()
            if notification.offset > .seconds(2 * 3_600) { break }
            let frame = try #require(notification.expected)
            if frame.kind == .error {
                errors += 1
                continue
            }
            if frame.kind == .writeAcknowledged { acknowledgements += 1 }
            switch (frame.identifier, frame.value) {
            case ("speed", .range(let value)?): if notification.offset > .zero { speeds.append(value) }
            case ("odometer", .range(let value)?): odometer.append(value)
            case ("state_of_charge", .range(let value)?): charge.append(value)
            case ("battery_temperature", .range(let value)?): temperatures.append(value)
            case ("lights", .state(_, let name)?): lights.insert(name)
            case ("locked", .state(_, let name)?):
                if frame.kind == .writeAcknowledged || notification.offset == .zero { locks.append(name) }
            case ("assist_level", .range(let value)?): assist.insert(value)
            default: break
            }
        }
        #expect(speeds.allSatisfy { (0...26).contains($0) })
        #expect(speeds.max()! > 14)
        #expect(speeds.contains(0))
        // Speed is sent every 0.2 s while unlocked: the odometer advances by the integral.
        let integral = speeds.reduce(0, +) * 0.2 / 3_600
        let travelled = odometer.last! - odometer.first!
        #expect((travelled - integral).magnitude < 0.25, "odometer \(travelled) km vs speed integral \(integral) km")
        #expect(zip(odometer, odometer.dropFirst()).allSatisfy { $0 < $1 })
        #expect(zip(charge, charge.dropFirst()).allSatisfy { $0 >= $1 }, "state of charge never rises")
        #expect(charge.first! - charge.last! >= 10)
        #expect(temperatures.allSatisfy { (15...40).contains($0) })
        #expect(temperatures.max()! > 22, "the battery warms up while riding")
        #expect(lights == ["disabled", "blinking", "enabled"])
        #expect(locks.first == "locked" && locks.count >= 5)
        #expect(zip(locks, locks.dropFirst()).allSatisfy { $0 != $1 }, "lock and unlock alternate")
        #expect(assist.isSubset(of: [0, 1, 2, 3, 4, 5]) && assist.count >= 3)
        #expect(errors > 3)
        #expect(acknowledgements > 10)
    }

    @Test func disconnectsLeaveGapsAndResendEveryProperty() {
        let configuration = ComoduleSimulator.Configuration(
            link: LinkFaults(connectedTime: 15...45, disconnectGap: 10...15)
        )
        var simulator = ComoduleSimulator(seed: 6, configuration: configuration)
        var previous = Duration.zero
        var gaps = 0
        var serials = 0
        for _ in 0..<20_000 {
            let notification = simulator.next()
            // Parked, the module is silent for at most 5 s (temperature), so longer gaps are disconnects.
            if notification.offset - previous >= .seconds(8) { gaps += 1 }
            if notification.expected?.identifier == "motor_serial" { serials += 1 }
            previous = notification.offset
        }
        #expect(gaps >= 5)
        #expect(serials == gaps + 1, "the module re-sends every property after each reconnect")
    }

    @Test func jitterAndBurstsKeepOffsetsOrdered() {
        var configuration = ComoduleSimulator.Configuration.default
        configuration.link.jitter = 0.5
        configuration.link.burstProbability = 0.05
        configuration.link.burstHold = 1
        configuration.link.malformedRate = 0
        var simulator = ComoduleSimulator(seed: 8, configuration: configuration)
        var previous = Duration.zero
        var sameOffset = 0
        for _ in 0..<10_000 {
            let notification = simulator.next()
            #expect(notification.offset >= previous)
            if notification.offset == previous { sameOffset += 1 }
            previous = notification.offset
        }
        #expect(sameOffset > 500, "bursts deliver several notifications at once")
    }

    @Test func malformedPacketsCoverEveryRuleAndAreRejected() {
        var configuration = ComoduleSimulator.Configuration.default
        configuration.link.malformedRate = 0.5
        var simulator = ComoduleSimulator(seed: 10, configuration: configuration)
        let decoder = ComoduleDecoder()
        var codes: Set<String> = []
        for _ in 0..<10_000 {
            let notification = simulator.next()
            guard notification.isMalformed else { continue }
            do {
                let frame = try decoder.decode(notification.rawNotification(startTime: 0))
                Issue.record("malformed \(notification.bytes) decoded as \(frame)")
            } catch {
                codes.insert(error.code.description)
            }
        }
        #expect(
            codes == [
                "unknownCharacteristic", "truncatedHeader", "unknownFrameType", "reservedBitsSet", "invalidValueLength",
                "truncatedValue", "trailingBytes", "unknownProperty", "valueOutOfRange",
            ]
        )
    }

    /// Pins the generated bytes and offsets: a change here means recordings
    /// made with the simulator are no longer reproducible.
    @Test func outputIsPinnedForAFixedSeed() {
        var simulator = ComoduleSimulator(seed: 2024)
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        for _ in 0..<10_000 {
            let notification = simulator.next()
            let nanoseconds =
                UInt64(notification.offset.components.seconds) &* 1_000_000_000
                &+ UInt64(notification.offset.components.attoseconds / 1_000_000_000)
            var words = [notification.characteristic.high, notification.characteristic.low, nanoseconds]
            words.append(notification.isMalformed ? 1 : 0)
            for word in words {
                for shift in stride(from: 0, to: 64, by: 8) {
                    hash = (hash ^ (word >> UInt64(shift) & 0xFF)) &* 0x0000_0100_0000_01B3
                }
            }
            for byte in notification.bytes {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
        }
        #expect(hash == 11_939_742_650_619_533_739)
    }
}
