import Devices
import Testing

@Suite struct ObviousSimulatorTests {
    @Test func decodedNotificationsEqualTheGroundTruth() {
        var simulator = ObviousSimulator(seed: 11)
        let decoder = ObviousDecoder()
        var counts = (messages: 0, malformed: 0)
        var previous = Duration.zero
        for _ in 0..<5_000 {
            let notification = simulator.next()
            #expect(notification.offset >= previous)
            previous = notification.offset
            #expect(notification.characteristic == ObviousGATT.data)
            do {
                let message = try decoder.decode(notification.rawNotification(startTime: 1_000))
                #expect(message == notification.expected, "\(notification.bytes)")
                counts.messages += 1
            } catch {
                #expect(notification.isMalformed, "\(notification.bytes): \(error)")
                counts.malformed += 1
            }
        }
        #expect(counts.malformed > 10)
        #expect(counts.messages > 4_000)
    }

    @Test func sameSeedGivesTheSameBytes() {
        var first = ObviousSimulator(seed: 99)
        var second = ObviousSimulator(seed: 99)
        for _ in 0..<3_000 {
            #expect(first.next() == second.next())
        }
        var third = ObviousSimulator(seed: 100)
        var fourth = ObviousSimulator(seed: 99)
        let a = (0..<300).map { _ in third.next().bytes }
        let b = (0..<300).map { _ in fourth.next().bytes }
        #expect(a != b)
    }

    @Test func startsWithFeaturesAndVersionThenUpgradesWithProgressAndNewVersion() {
        var simulator = ObviousSimulator(seed: 5, configuration: .clean)
        let first = simulator.next()
        #expect(first.offset == .zero)
        #expect(first.expected == .featureStatus(simulator.features))
        #expect(simulator.next().expected == .firmwareVersion(ObviousFirmwareVersion(code: 2_004_001)))
        var progress: [UInt8] = []
        var statuses: [ObviousUpgradeStatus] = []
        var versions: [ObviousFirmwareVersion] = []
        var toggles = 0
        while true {
            let notification = simulator.next()
            if notification.offset > .seconds(3_600) { break }
            switch notification.expected {
            case .upgradeProgress(let percent): progress.append(percent)
            case .upgradeStatus(let status):
                statuses.append(status)
                if status != .success { progress.append(255) }  // failure marker
            case .firmwareVersion(let version):
                versions.append(version)
                #expect(statuses.last == .success, "a new version follows a successful upgrade")
            case .featureStatus: toggles += 1
            case nil: Issue.record("clean configuration produced a malformed packet")
            }
        }
        #expect(statuses.count >= 8)
        #expect(statuses.contains(.success))
        #expect(statuses.contains { $0 != .success })
        #expect(versions.count == statuses.count { $0 == .success })
        #expect(versions.allSatisfy { $0.isValid })
        #expect(zip(versions, versions.dropFirst()).allSatisfy { $0.code < $1.code })
        #expect(toggles > 100)
        // Progress rises within an upgrade, in steps of the configured size (gaps allowed).
        var last = -1
        for value in progress {
            if value == 255 || value == 0 {
                last = value == 255 ? -1 : 0
                continue
            }
            #expect(Int(value) > last && value % 5 == 0 && value <= 100)
            last = Int(value)
        }
    }

    @Test func disconnectsLeaveGapsAndResendState() {
        let configuration = ObviousSimulator.Configuration(
            meanToggleInterval: 1,
            link: LinkFaults(connectedTime: 15...45, disconnectGap: 5...10)
        )
        var simulator = ObviousSimulator(seed: 8, configuration: configuration)
        var previous = Duration.zero
        var gaps = 0
        var resentAfterGap = 0
        var sawGap = false
        for _ in 0..<2_000 {
            let notification = simulator.next()
            if notification.offset - previous >= .seconds(4) {
                gaps += 1
                sawGap = true
            }
            if sawGap {
                if case .featureStatus(let features) = notification.expected,
                    features.count == configuration.featureIDs.count
                {
                    resentAfterGap += 1
                }
                sawGap = false
            }
            previous = notification.offset
        }
        #expect(gaps >= 10)
        #expect(resentAfterGap >= gaps - 1)
    }

    @Test func burstsDeliverSeveralNotificationsAtOneOffset() {
        let configuration = ObviousSimulator.Configuration(
            meanToggleInterval: 0.1,
            link: LinkFaults(jitter: 0.01, burstProbability: 0.2, burstHold: 1)
        )
        var simulator = ObviousSimulator(seed: 4, configuration: configuration)
        var offsets: [Duration: Int] = [:]
        for _ in 0..<2_000 { offsets[simulator.next().offset, default: 0] += 1 }
        #expect(offsets.values.contains { $0 >= 5 })
    }

    @Test func malformedRateIsRespectedAndEveryMalformedPacketIsRejected() {
        var configuration = ObviousSimulator.Configuration.default
        configuration.link.malformedRate = 0.5
        var simulator = ObviousSimulator(seed: 77, configuration: configuration)
        let decoder = ObviousDecoder()
        var malformed = 0
        for _ in 0..<4_000 {
            let notification = simulator.next()
            if notification.isMalformed {
                malformed += 1
                #expect(throws: ObviousDecodeError.self) {
                    try decoder.decode(notification.rawNotification(startTime: 0))
                }
            }
        }
        #expect((1_600...2_400).contains(malformed))
    }

    /// Pins the generated bytes and offsets: a change here means recordings
    /// made with the simulator are no longer reproducible.
    @Test func outputIsPinnedForAFixedSeed() {
        var simulator = ObviousSimulator(seed: 2024)
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
        #expect(hash == 335_074_764_029_127_905)
    }
}
