import CaptureFiles
import Devices
import Families
import Foundation
import Recording
import Session
import TestSupport
import Testing

/// Writes `bytes` to a file in a fresh temporary directory and imports it.
func importCapture(
    _ files: [[UInt8]], name: String = "capture", handleMap: HandleMap = HandleMap(),
    sampleTimeFit: SampleTimeFit = .whole, label: String = #function
) async throws -> (
    directory: String, summary: RecordingSummary,
    inventory: CaptureInventory
) {
    let folder = makeTemporaryDirectory(label)
    var paths: [String] = []
    for (index, bytes) in files.enumerated() {
        let path = folder + "/\(name)-\(index)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        paths.append(path)
    }
    let directory = folder + "/imported"
    var options = RecordingSession.Options()
    options.sampleTimeFit = sampleTimeFit
    let session = RecordingSession(
        importing: CaptureImport(files: paths, handleMap: handleMap), directory: directory, options: options)
    let summary = try await session.record()
    return (directory, summary, session.captureInventory!)
}

@Suite struct CaptureImportTests {
    static let allFamilies: [DeviceFamily] = [.diot, .comodule, .jacquard, .fjorden, .obvious]

    @Test(arguments: CaptureFileWriter.Format.allCases)
    func everyFamilyComesOutTypedAndEqualToTheSimulator(format: CaptureFileWriter.Format) async throws {
        let scenario = CaptureScenario.make(families: Self.allFamilies, count: 120, unknown: true)
        let reference = makeTemporaryDirectory("reference") + "/ref"
        try scenario.referenceRecording(at: reference)
        let (directory, summary, inventory) = try await importCapture([
            CaptureFileWriter.write(scenario.packets, as: format)
        ])
        // Every device found, with its family (or none) and identifier.
        #expect(inventory.devices.map(\.family) == scenario.devices.map(\.family))
        #expect(inventory.devices.map(\.identifier) == scenario.devices.map(\.identifier))
        #expect(inventory.devices.allSatisfy { $0.unresolvedHandles.isEmpty })
        #expect(summary.replayedNotifications == scenario.devices.map(\.expected.count).reduce(0, +))
        let typed = try expectSameStreams(directory, as: reference)
        #expect(typed > 500)
        // Each family produced typed streams; the unknown device raw ones under `ble`.
        let topics = try RecordingReader(directory: directory).topics
        for family in Self.allFamilies {
            #expect(topics.contains { $0.hasPrefix("/\(family.rawValue)/") && !$0.contains("/raw/") }, "\(family)")
        }
        #expect(topics.contains("/ble/D00DF00D0001/raw/c_12345678123456789abcdef012345678"))
        // The disconnections at the end are no loss (no reconnection follows); no other loss either,
        // beyond what the decoders find malformed (the reference has the same).
        #expect(try losses(directory).map(\.reason) == (try losses(reference).map(\.reason)))
        let info = try RecordingInfo.load(from: directory)
        #expect(info.session.source == "import")
        #expect(info.devices.contains { $0.family == "ble" && $0.identifier == "D00DF00D0001" })
        #expect(inventory.devices.last?.facts["address"] == "D0:0D:F0:0D:00:01")
        #expect(inventory.devices.last?.facts["advertised_name"] == "Thing")
    }

    @Test func pcapngWithNanosecondTimestampsKeepsTimes() async throws {
        let scenario = CaptureScenario.make(families: [.fjorden], count: 50)
        let reference = makeTemporaryDirectory("reference") + "/ref"
        try scenario.referenceRecording(at: reference)
        let (directory, _, _) = try await importCapture([
            CaptureFileWriter.pcapng(
                scenario.packets, linkType: 201,
                nanoseconds: true)
        ])
        #expect(try expectSameStreams(directory, as: reference) > 0)
    }

    @Test func severalFilesAreReadInTimeOrder() async throws {
        let scenario = CaptureScenario.make(families: [.diot, .obvious], count: 100)
        let reference = makeTemporaryDirectory("reference") + "/ref"
        try scenario.referenceRecording(at: reference)
        // Split where no L2CAP frame is under way: after a complete ATT frame of the last packet.
        let packets = scenario.packets
        var cut = packets.count / 2
        while !(packets[cut].type == 2 && packets[cut].bytes[1] & 0x30 == 0x20 && cut > 0) { cut += 1 }
        let first = CaptureFileWriter.write(Array(packets[..<cut]), as: .btsnoopH4)
        let second = CaptureFileWriter.write(Array(packets[cut...]), as: .pcapngMonitor)
        // Given newest first: the import orders them by their first timestamps.
        let (directory, _, inventory) = try await importCapture([second, first])
        #expect(inventory.files.map { $0.hasSuffix("-1") } == [true, false])
        #expect(try expectSameStreams(directory, as: reference) > 0)
    }

    @Test func withoutDiscoveryTheHandleMapAndTheFamilyLayoutNameHandles() async throws {
        let scenario = CaptureScenario.make(families: [.diot, .comodule], count: 80, discovery: false)
        let diot = scenario.devices[0]
        // Map all DIoT handles but one; Comodule notifies one characteristic, so its layout names its handle.
        let sorted = diot.handles.sorted { $0.value < $1.value }
        var map = HandleMap()
        let diotAddress = CaptureScenario.addressText(diot.address)
        for (uuid, handle) in sorted.dropLast() { map.byAddress[diotAddress, default: [:]][handle] = uuid }
        let unmapped = sorted.last!
        let (directory, _, inventory) = try await importCapture(
            [
                CaptureFileWriter.write(
                    scenario.packets,
                    as: .btsnoopH4)
            ],
            handleMap: map)
        #expect(inventory.devices[0].unresolvedHandles == [unmapped.value])
        #expect(inventory.devices[0].handleSources[sorted[0].value] == "handle map")
        #expect(inventory.devices[1].unresolvedHandles.isEmpty)
        #expect(inventory.devices[1].handleSources.values.allSatisfy { $0 == "family layout" })
        // The unmapped handle is recorded by handle.
        let standIn = CapturedDevice.standIn(for: unmapped.value)
        #expect(standIn.description == String(format: "00000000-0000-0000-0000-%012x", unmapped.value))
        let topics = try RecordingReader(directory: directory).topics
        let standInTopic = StreamDescriptor.rawTopic(family: .diot, device: diot.identifier, characteristic: standIn)
        #expect(topics.contains(standInTopic))
        let expected = diot.expected.filter { $0.characteristic == unmapped.key }.count
        #expect(try messages(directory, standInTopic).count == expected)
        // The Comodule device decodes fully, as with discovery.
        var comoduleOnly = scenario
        comoduleOnly.devices = [scenario.devices[1]]
        let reference = makeTemporaryDirectory("reference") + "/ref"
        try comoduleOnly.referenceRecording(at: reference)
        #expect(try expectSameStreams(directory, as: reference) > 0)
        let facts = inventory.devices[0].facts
        #expect(facts["unresolved_handles"] == String(format: "0x%04x", unmapped.value))
    }

    @Test func aDeviceThatDidNotAdvertiseIsRecognisedByItsServices() async throws {
        // No advertisement in the capture: the discovered primary service names the family.
        let scenario = CaptureScenario.make(families: [.fjorden], count: 40, advertise: false)
        let (_, _, inventory) = try await importCapture([CaptureFileWriter.write(scenario.packets, as: .pcapH4)])
        #expect(inventory.devices.first?.family == .fjorden)
        #expect(inventory.devices.first?.familyEvidence == "discovered services")
    }

    @Test func dropsCutRecordsBrokenFramesAndReconnectionsAreLoss() async throws {
        var traffic = HCITrafficBuilder()
        let address: [UInt8] = [0xC1, 0, 0, 0, 0, 1]
        let uuid = CharacteristicUUID("f10d0002-0000-4000-8000-00805f9b34fb")!
        traffic.connect(0x0041, address)
        traffic.send(
            .init(handle: 0x0041, received: false, bytes: [0x08] + ATT.le16(1) + ATT.le16(0xFFFF) + ATT.le16(0x2803)))
        traffic.send(
            .init(
                handle: 0x0041, received: true,
                bytes: [0x09, 21] + ATT.le16(0x10) + [0x10] + ATT.le16(0x11)
                    + ATT.bytes(uuid)))
        traffic.send(.init(handle: 0x0041, received: true, bytes: ATT.notification(0x11, [1, 2, 3])))
        // A continuation without a start.
        traffic.rawACL([0x41, 0x10, 2, 0, 9, 9])
        // A start whose frame never completes before the disconnection.
        traffic.rawACL([0x41, 0x20, 5, 0, 40, 0, 4, 0, 0x1B])
        traffic.disconnect(0x0041, reason: 0x08)
        traffic.clock += 2_000_000_000
        traffic.connect(0x0042, address)
        traffic.send(.init(handle: 0x0042, received: true, bytes: ATT.notification(0x11, [4, 5, 6])))
        // A record the capture cut (snap length).
        traffic.rawACL([0x42, 0x20, 12, 0, 8, 0, 4, 0, 0x1B, 0x11, 0x00], originalLength: 16)
        traffic.send(.init(handle: 0x0042, received: true, bytes: ATT.notification(0x11, [7])))
        let dropAt = traffic.packets.count - 1
        let bytes = CaptureFileWriter.write(traffic.packets, as: .btsnoopH4, drops: [dropAt: 5])
        // And the file cut inside its last record.
        let (directory, summary, inventory) = try await importCapture([bytes + bytes.prefix(40).suffix(24)])
        #expect(inventory.devices.count == 1)
        #expect(inventory.devices[0].connections.count == 2)
        #expect(summary.replayedNotifications == 3)
        let reasons = try losses(directory).map(\.reason)
        #expect(reasons.contains { $0.contains("continuation fragment without a start") })
        #expect(reasons.contains { $0.contains("never completed before the disconnection") })
        #expect(reasons.contains { $0.contains("cut by the capture") })
        #expect(reasons.contains { $0.contains("the capture dropped 5 packet(s)") })
        #expect(reasons.contains { $0.contains("ends inside a record") })
        let gap = try losses(directory).first { $0.reason.contains("reason 0x08: connection timeout") }
        #expect(gap?.durationNanoseconds.map { $0 > 2_000_000_000 && $0 < 2_100_000_000 } == true)
        #expect(try losses(directory).first { $0.reason.contains("dropped") }?.count == 5)
    }

    @Test func importedRecordingReplaysToTheSameTypedStreams() async throws {
        let scenario = CaptureScenario.make(families: Self.allFamilies, count: 60, unknown: true)
        let (directory, _, _) = try await importCapture([CaptureFileWriter.write(scenario.packets, as: .pcapngH4)])
        let again = makeTemporaryDirectory("replay") + "/again"
        let session = RecordingSession(replaying: ReplaySource(recording: directory), directory: again)
        _ = try await session.record()
        #expect(try expectSameStreams(again, as: directory) > 0)
    }

    /// Many more values than the read-ahead holds (its batches, its queue): all recorded, in order.
    @Test func aLongImportIsRecordedInFullAndInCaptureOrder() async throws {
        let scenario = CaptureScenario.make(families: [.diot, .obvious], count: 5_000)
        let values = scenario.devices.map(\.expected.count).reduce(0, +)
        // The read-ahead (Session's CaptureReadAhead) queues at most 4 batches of 2,048 outputs.
        #expect(values > 4 * 2_048)
        let reference = makeTemporaryDirectory("reference") + "/ref"
        try scenario.referenceRecording(at: reference)
        let (directory, summary, _) = try await importCapture([
            CaptureFileWriter.write(scenario.packets, as: .btsnoopH4)
        ])
        #expect(summary.replayedNotifications == values)
        #expect(try expectSameStreams(directory, as: reference) > values)
        for device in scenario.devices {
            let characteristic = device.expected[0].characteristic
            let topic = StreamDescriptor.rawTopic(
                family: device.family ?? .diot, device: device.identifier, characteristic: characteristic)
            let want = device.expected.filter { $0.characteristic == characteristic }
            #expect(try messages(directory, topic).map(\.logTime) == want.map(\.receiveTime))
        }
        #expect(try losses(directory).isEmpty)
    }

    @Test func truncatedFilesKeepWhatCameBefore() async throws {
        let scenario = CaptureScenario.make(families: [.obvious], count: 60)
        let full = CaptureFileWriter.write(scenario.packets, as: .pcapngMonitor)
        let (directory, _, _) = try await importCapture([Array(full.prefix(full.count * 2 / 3))])
        let topic = StreamDescriptor.rawTopic(
            family: .obvious, device: scenario.devices[0].identifier,
            characteristic: scenario.devices[0].expected[0].characteristic)
        let got = try messages(directory, topic)
        let want = scenario.devices[0].expected.filter {
            $0.characteristic == scenario.devices[0].expected[0].characteristic
        }
        #expect(got.count > 0 && got.count < want.count)
        #expect(got.map(\.logTime) == want.prefix(got.count).map(\.receiveTime))
        #expect(try losses(directory).contains { $0.reason.contains("ends inside a record") })
    }

    @Test func unsupportedDatalinksAndFormatsAreClearErrors() throws {
        var header = Array("btsnoop\0".utf8) + CaptureFileWriter.be32(1) + CaptureFileWriter.be32(1003)
        #expect(throws: CaptureFileError.self) { try CaptureFileReader(bytes: header) }
        do { _ = try CaptureFileReader(bytes: header) } catch {
            #expect(error.kind == .unsupported)
            #expect(error.message.contains("datalink 1003"))
        }
        header = CaptureFileWriter.pcap([], linkType: 1)
        do { _ = try CaptureFileReader(bytes: header, name: "eth.pcap") } catch {
            #expect(
                error.message == "eth.pcap: link type 1 (Ethernet) is not a Bluetooth HCI link type this build "
                    + "reads (supported: 187, 201 HCI H4 with phdr, 254 Linux monitor, 256 LE link layer with phdr)")
        }
        let ethernet = CaptureFileWriter.pcapng(
            [HCITrafficBuilder.Packet(type: 2, received: true, time: 0, bytes: [1])],
            linkType: 1)
        let reader = try CaptureFileReader(bytes: ethernet, name: "eth.pcapng")
        #expect(throws: CaptureFileError.self) { while try reader.next() != nil {} }
        do { _ = try CaptureFileReader(bytes: Array("{\"a\": 1}".utf8), name: "x.json") } catch {
            #expect(error.kind == .unknownFormat)
            #expect(
                error.message == "x.json: not a btsnoop, pcapng or pcap file (it starts with 7b 22 61 22 3a 20 31 7d)")
        }
    }

    @Test func handleMapFilesParseAndReportBadLines() throws {
        let map = try HandleMap(text: "# comment\n0x0010 d001\nC4:7C:8D:6A:12:34  35  2a19 # battery\n\n")
        #expect(map.shared[0x10] == CharacteristicUUID(short: 0xD001))
        #expect(map.byAddress["C4:7C:8D:6A:12:34"]?[35] == CharacteristicUUID(short: 0x2A19))
        let peer = CapturePeer(address: "C4:7C:8D:6A:12:34", addressType: "public")
        #expect(map.characteristic(of: 35, on: peer) == CharacteristicUUID(short: 0x2A19))
        #expect(map.characteristic(of: 35, on: CapturePeer(address: "00:00:00:00:00:01", addressType: nil)) == nil)
        do { _ = try HandleMap(text: "0x0010 d001\n0xzz d002\n", name: "m.txt") } catch {
            #expect(error.message == "m.txt:2: '0xzz' is not an ATT handle (0x0001 to 0xffff)")
        }
        do { _ = try HandleMap(text: "0x10 notauuid", name: "m.txt") } catch {
            #expect(error.message == "m.txt:1: 'notauuid' is not a UUID")
        }
    }
}
