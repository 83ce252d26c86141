import Devices
import Testing

@Suite struct FjordenSimulatorTests {
    @Test func decodedNotificationsEqualTheGroundTruth() {
        var simulator = FjordenSimulator(seed: 21)
        let decoder = FjordenDecoder()
        var counts = (values: 0, malformed: 0)
        var previous = Duration.zero
        for _ in 0..<5_000 {
            let notification = simulator.next()
            #expect(notification.offset >= previous)
            previous = notification.offset
            do {
                let value = try decoder.decode(notification.rawNotification(startTime: 0))
                #expect(value == notification.expected, "\(notification.bytes)")
                #expect(value.characteristic == notification.characteristic)
                counts.values += 1
            } catch {
                #expect(notification.isMalformed, "\(notification.bytes): \(error)")
                counts.malformed += 1
            }
        }
        #expect(counts.malformed > 10)
        #expect(counts.values > 4_500)
    }

    @Test func sameSeedGivesTheSameBytes() {
        var first = FjordenSimulator(seed: 5)
        var second = FjordenSimulator(seed: 5)
        #expect(first.deviceInformation == second.deviceInformation)
        for _ in 0..<3_000 {
            #expect(first.next() == second.next())
        }
        var other = FjordenSimulator(seed: 6)
        #expect(other.deviceInformation != first.deviceInformation, "the serial number comes from the seed")
        let a = (0..<300).map { _ in other.next().bytes }
        let b = (0..<300).map { _ in first.next().bytes }
        #expect(a != b)
    }

    @Test func startsWithDeviceInformationAndBattery() {
        var simulator = FjordenSimulator(seed: 2, configuration: .clean)
        let info = simulator.deviceInformation
        #expect(info.contains { $0.field == .serialNumber && $0.value.hasPrefix("FG-") })
        for expected in info {
            #expect(simulator.next().expected == .deviceInformation(expected))
        }
        #expect(simulator.next().expected == .batteryLevel(FjordenBatteryLevel(percent: 64)))
    }

    @Test func eventSequencesAreConsistentAndBatteryDrains() {
        var simulator = FjordenSimulator(seed: 3, configuration: .clean)
        var events: [FjordenGripEvent] = []
        var battery: [UInt8] = []
        while true {
            let notification = simulator.next()
            if notification.offset > .seconds(4 * 3_600) { break }
            switch notification.expected {
            case .gripEvent(let event): events.append(event)
            case .batteryLevel(let level): battery.append(level.percent)
            case .deviceInformation: break
            case nil: Issue.record("clean configuration produced a malformed packet")
            }
        }
        // Every shutter down comes after a half-down and is followed by a release.
        for (index, event) in events.enumerated() where event.event == .shutterButtonDown {
            #expect(index > 0 && events[index - 1].event == .shutterButtonHalfDown)
            #expect(index + 1 < events.count && events[index + 1].event == .shutterButtonReleased)
        }
        // Every zoom hold returns to neutral.
        for (index, event) in events.enumerated() where [.zoomLeverHoldLeft, .zoomLeverHoldRight].contains(event.event)
        {
            #expect(index + 1 < events.count && events[index + 1].event == .zoomLeverNeutral)
        }
        let dial = events.filter { $0.event == .dialButtonCW || $0.event == .dialButtonCCW }
        #expect(dial.contains { $0.repeatCount > 1 })
        #expect(dial.allSatisfy { (1...6).contains($0.repeatCount) })
        let kinds = Set(events.map(\.event.description))
        for name in [
            "shutterButtonHalfDown", "shutterButtonDown", "shutterButtonReleased", "dialButtonCW", "dialButtonCCW",
            "dialButtonPress", "fnButtonPress", "zoomLeverNeutral",
        ] {
            #expect(kinds.contains(name), "\(name) occurs")
        }
        #expect(events.contains { if case .unknown = $0.event { true } else { false } })
        #expect(zip(battery, battery.dropFirst()).allSatisfy { $0 >= $1 }, "battery never rises")
        #expect(battery.first == 64 && battery.last! < 20)
        #expect(battery.contains { FjordenBatteryLevel(percent: $0).isLow })
    }

    @Test func malformedPacketsAreRejectedIncludingUnknownCharacteristics() {
        var configuration = FjordenSimulator.Configuration.default
        configuration.link.malformedRate = 0.5
        var simulator = FjordenSimulator(seed: 9, configuration: configuration)
        let decoder = FjordenDecoder()
        var codes: Set<String> = []
        for _ in 0..<4_000 {
            let notification = simulator.next()
            guard notification.isMalformed else { continue }
            do {
                let value = try decoder.decode(notification.rawNotification(startTime: 0))
                Issue.record("malformed \(notification.bytes) decoded as \(value)")
            } catch {
                codes.insert(error.code.description)
            }
        }
        #expect(
            codes == [
                "emptyEvent", "eventTooLong", "zeroRepeatCount", "invalidBatteryLength", "batteryOutOfRange",
                "invalidUTF8", "unknownCharacteristic",
            ]
        )
    }

    @Test func disconnectsLeaveGapsAndResendDeviceInformation() {
        let configuration = FjordenSimulator.Configuration(
            meanActionInterval: 0.5,
            link: LinkFaults(connectedTime: 10...30, disconnectGap: 5...8)
        )
        var simulator = FjordenSimulator(seed: 12, configuration: configuration)
        var previous = Duration.zero
        var gaps = 0
        var resent = 0
        var afterGap = false
        for _ in 0..<3_000 {
            let notification = simulator.next()
            if notification.offset - previous >= .seconds(4) {
                gaps += 1
                afterGap = true
            } else if afterGap {
                afterGap = false
            }
            if afterGap, case .deviceInformation(let info) = notification.expected, info.field == .manufacturerName {
                resent += 1
            }
            previous = notification.offset
        }
        #expect(gaps >= 10)
        #expect(resent == gaps)
    }

    /// Pins the generated bytes and offsets: a change here means recordings
    /// made with the simulator are no longer reproducible.
    @Test func outputIsPinnedForAFixedSeed() {
        var simulator = FjordenSimulator(seed: 2024)
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
        #expect(hash == 9_044_673_664_803_970_637)
    }
}
