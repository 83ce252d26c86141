import Devices
import Testing

@Suite struct DiotSimulatorScenarioTests {
    let decoder = DiotDecoder()

    /// Decodes a simulated notification and checks it against its ground truth.
    func check(_ notification: DiotSimulator.SimulatedNotification) {
        do {
            let events = try decoder.decodeEvents(notification.bytes, from: notification.characteristic)
            #expect(!notification.isMalformed, "a malformed packet decoded: \(notification.bytes)")
            #expect(events == notification.expected)
        } catch {
            #expect(notification.isMalformed, "\(error)")
            #expect(notification.expected == nil)
            #expect([.emptyValue, .invalidSingleByte, .invalidLength].contains(error.code), "\(error.code)")
        }
    }

    @Test func presetsKeepTheDefaultBehaviour() {
        #expect(DiotSimulator.Configuration.clean == .default)
        let defaults = DiotSimulator.Configuration.default
        #expect(defaults.link == .clean && !defaults.connectReads)
        let stress = DiotSimulator.Configuration.stress
        #expect(stress.bindings == defaults.bindings)
        #expect(stress.link.jitter > 0 && stress.link.burstProbability > 0 && stress.link.malformedRate > 0)
        #expect(stress.link.connectedTime != nil && stress.connectReads)
        var plain = DiotSimulator(seed: 2024)
        var clean = DiotSimulator(seed: 2024, configuration: .clean)
        for _ in 0..<1_000 { #expect(plain.next() == clean.next()) }
    }

    @Test func malformedRateProducesPacketsTheDecoderRejectsWithTypedErrors() {
        var configuration = DiotSimulator.Configuration.default
        configuration.link.malformedRate = 0.2
        var simulator = DiotSimulator(seed: 11, configuration: configuration)
        var malformed = 0
        var lengths: Set<Int> = []
        for _ in 0..<5_000 {
            let notification = simulator.next()
            #expect(notification.isDataChannel)
            check(notification)
            if notification.isMalformed {
                malformed += 1
                lengths.insert(notification.bytes.count)
                #expect(notification.records.isEmpty)
                #expect(notification.bytes != [0x00])
                #expect(notification.bytes.isEmpty || notification.bytes.count % 5 != 0)
            }
        }
        #expect(malformed > 800 && malformed < 1_200, "\(malformed)")
        #expect(lengths.isSuperset(of: [0, 1, 2, 3, 4, 6]))
    }

    @Test func disconnectGapsAreSilent() {
        var configuration = DiotSimulator.Configuration.imu100Hz
        configuration.link.connectedTime = 2.5...7.5
        configuration.link.disconnectGap = 2...3
        var simulator = DiotSimulator(seed: 4, configuration: configuration)
        var previous = Duration.zero
        var gaps: [Duration] = []
        var count = 0
        while true {
            let notification = simulator.next()
            if notification.offset > .seconds(120) { break }
            // On a perfect link the IMU notifies every 10 ms; anything longer is a gap.
            if notification.offset - previous > .milliseconds(10) { gaps.append(notification.offset - previous) }
            previous = notification.offset
            count += 1
            check(notification)
        }
        #expect(gaps.count >= 10, "\(gaps.count) gaps")
        #expect(gaps.allSatisfy { $0 >= .seconds(2) && $0 <= .milliseconds(3_010) }, "\(gaps)")
        #expect(count < 2 * 100 * 120 * 3 / 4)
    }

    @Test func connectReadsStartTheSessionAndEveryReconnect() throws {
        var configuration = DiotSimulator.Configuration.withConnectReads
        configuration.link.connectedTime = 5...15
        var simulator = DiotSimulator(seed: 8, configuration: configuration)
        var reads: [[UInt16]] = []
        var current: [UInt16] = []
        var batteries: [UInt8] = []
        for _ in 0..<20_000 {
            let notification = simulator.next()
            check(notification)
            if notification.isDataChannel {
                if !current.isEmpty { reads.append(current) }
                current = []
                continue
            }
            current.append(notification.characteristic.shortValue ?? 0)
            if case .battery(let percent)? = notification.expected?.first { batteries.append(percent) }
        }
        let order: [UInt16] = [0x2A29, 0x2A24, 0x2A27, 0x2A26, 0x2A28, 0xFFD1, 0x2A19, 0xC001, 0xC002, 0xC003, 0xFF71]
        #expect(reads.count >= 3, "session start and reconnects")
        #expect(reads.allSatisfy { $0 == order })
        #expect(zip(batteries, batteries.dropFirst()).allSatisfy { $0 >= $1 })

        var fresh = DiotSimulator(seed: 8, configuration: .withConnectReads)
        var first: [DiotEvent] = []
        for _ in order { first += fresh.next().expected ?? [] }
        let bindings = first.compactMap { event -> String? in
            if case .channelBinding(let channel, let feature) = event { "\(channel)=\(feature)" } else { nil }
        }
        #expect(bindings.prefix(4) == ["ch1=accX", "ch1=accY", "ch1=accZ", "ch2=gyroX"])
        let rates = first.compactMap { event -> UInt32? in
            if case .channelRate(_, let milliseconds) = event { milliseconds } else { nil }
        }
        #expect(rates == [20, 20, 1_000, 2_000, 1_000, 5_000])
        #expect(first.contains(.chipID(fresh.chipID)))
        #expect(first.contains(.deviceInformation(field: .manufacturerName, value: "Daatrics Ltd")))
        #expect(first.contains(.featureSetting(DiotFeatureSetting(index: 0, feature: .hrAlertTriggerTop, raw: 120))))
        let data = fresh.next()
        #expect(data.isDataChannel && data.offset == .zero)
    }

    @Test func jitterAndBurstsKeepOffsetsNonDecreasing() {
        var configuration = DiotSimulator.Configuration.default
        configuration.link.jitter = 0.05
        configuration.link.burstProbability = 0.05
        configuration.link.burstHold = 0.2
        var simulator = DiotSimulator(seed: 21, configuration: configuration)
        var previous = Duration.zero
        var late = 0
        var sameOffset = 0
        for index in 0..<10_000 {
            let notification = simulator.next()
            #expect(notification.offset >= previous)
            if notification.offset == previous { sameOffset += 1 }
            previous = notification.offset
            // Channels 1 and 2 notify every 20 ms on a perfect link.
            if notification.offset > .milliseconds(10 * (index + 2)) { late += 1 }
            check(notification)
        }
        #expect(late > 100)
        #expect(sameOffset > 100, "bursts deliver back to back")
    }

    @Test func sameSeedGivesTheSameBytesUnderStress() {
        var first = DiotSimulator(seed: 99, configuration: .stress)
        var second = DiotSimulator(seed: 99, configuration: .stress)
        var other = DiotSimulator(seed: 100, configuration: .stress)
        var differs = false
        for _ in 0..<20_000 {
            let a = first.next()
            #expect(a == second.next())
            if a.bytes != other.next().bytes { differs = true }
        }
        #expect(differs)
    }

    @Test func stressRunDecodesToItsGroundTruth() {
        var simulator = DiotSimulator(seed: 5, configuration: .stress)
        var previous = Duration.zero
        var malformed = 0
        var service = 0
        for _ in 0..<50_000 {
            let notification = simulator.next()
            #expect(notification.offset >= previous)
            previous = notification.offset
            if notification.isMalformed { malformed += 1 }
            if !notification.isDataChannel { service += 1 }
            check(notification)
        }
        #expect(malformed > 200)
        #expect(service >= 11 * 3)
    }

    @Test(arguments: [100.0, 200, 400])
    func imuPresetNotifiesAtTheRequestedRate(rate: Double) {
        var simulator = DiotSimulator(seed: 1, configuration: rate == 100 ? .imu100Hz : .imu(rate: rate))
        var count = 0
        var accZ: [Double] = []
        while true {
            let notification = simulator.next()
            if notification.offset >= .seconds(2) { break }
            count += 1
            #expect(notification.records.count == 3)
            if notification.channel == DiotChannel(1) { accZ.append(notification.records[2].numericValue) }
        }
        #expect(count == Int(2 * 2 * rate))
        #expect(accZ.allSatisfy { $0 > 0.85 && $0 < 1.15 })
    }
}
