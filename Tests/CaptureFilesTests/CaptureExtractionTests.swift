import CaptureFiles
import Devices
import Foundation
import Session
import TestSupport
import Testing

/// The extraction's common case — one ACL packet holding a whole
/// notification, read in place — gives what the general path gives: around
/// frames under way on other links, after drops, and whether outputs are
/// taken one by one or in batches; and an import that finds nothing to
/// record leaves no recording behind.
@Suite struct CaptureExtractionTests {
    static let first: [UInt8] = [0xC1, 0, 0, 0, 0, 1]
    static let second: [UInt8] = [0xC1, 0, 0, 0, 0, 2]
    static let long = (0..<60).map { UInt8($0) }

    /// A fragmented indication on one link while whole notifications come on
    /// the other, a host write that is no value, and 2 drops marked on the
    /// second device's last notification.
    static func interleavedCapture(as format: CaptureFileWriter.Format = .btsnoopH4) -> [UInt8] {
        var traffic = HCITrafficBuilder()
        traffic.connect(0x0041, first)
        traffic.connect(0x0042, second)
        traffic.send(.init(handle: 0x0042, received: true, bytes: ATT.notification(0x11, [1, 2, 3])))
        // 63 bytes of ATT: three fragments, the other link's notification after the first.
        _ = traffic.interleave([
            .init(handle: 0x0041, received: true, bytes: ATT.indication(0x15, long)),
            .init(handle: 0x0042, received: true, bytes: ATT.notification(0x11, [4])),
        ])
        traffic.send(.init(handle: 0x0041, received: false, bytes: ATT.notification(0x15, [9])))
        traffic.send(.init(handle: 0x0042, received: true, bytes: ATT.notification(0x11, [5, 6])))
        return CaptureFileWriter.write(traffic.packets, as: format, drops: [traffic.packets.count - 1: 2])
    }

    static func file(_ bytes: [UInt8], _ label: String = #function) throws -> String {
        let path = makeTemporaryDirectory(label) + "/capture.btsnoop"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func wholeNotificationsAroundAFrameUnderWayComeInCaptureOrderWithTheirBytes() throws {
        let capture = CaptureImport(files: [try Self.file(Self.interleavedCapture())])
        let inventory = try capture.survey()
        #expect(inventory.devices.count == 2)
        let notifying = try #require(inventory.devices.firstIndex { $0.valueCounts[0x11] != nil })
        let indicating = try #require(inventory.devices.firstIndex { $0.valueCounts[0x15] != nil })
        #expect(inventory.devices[notifying].valueCounts == [0x11: 3])
        #expect(inventory.devices[notifying].valueKinds[0x11] == [.notification])
        #expect(inventory.devices[indicating].valueCounts == [0x15: 1])
        #expect(inventory.devices[indicating].valueKinds[0x15] == [.indication])
        #expect(inventory.lossCount == 1)

        var extractor = try capture.extractor(for: inventory)
        var outputs: [CaptureOutput] = []
        while let output = try extractor.next() { outputs.append(output) }
        var values: [(device: Int, bytes: [UInt8])] = []
        var losses: [String] = []
        for output in outputs {
            switch output {
            case .notification(let device, let notification): values.append((device, notification.bytes))
            case .loss(_, _, let count, _, let reason): losses.append("\(count) \(reason)")
            }
        }
        #expect(values.map(\.device) == [notifying, notifying, indicating, notifying])
        #expect(values.map(\.bytes) == [[1, 2, 3], [4], Self.long, [5, 6]])
        #expect(losses == ["2 the capture dropped 2 packet(s)"])
        // The loss comes before the value of the packet that reported it.
        #expect(outputs.firstIndex { if case .loss = $0 { true } else { false } } == outputs.count - 2)
        // No discovery in the capture: the handle's stand-in characteristic.
        guard case .notification(_, let firstValue) = outputs.first else {
            Issue.record("the first output is not a notification: \(outputs)")
            return
        }
        #expect(firstValue.characteristic == CapturedDevice.standIn(for: 0x11))

        // In batches of any size: the same outputs.
        for limit in [1, 2, 3, 1_000] {
            var batched = try capture.extractor(for: inventory)
            var all: [CaptureOutput] = []
            var batch: [CaptureOutput] = []
            while try batched.next(into: &batch, upTo: limit) {
                #expect(batch.count == limit)
                all += batch
                batch.removeAll()
            }
            #expect(batch.count < limit)
            #expect(all + batch == outputs)
        }
    }

    /// The read-ahead's flat batches (their values in one buffer, each
    /// loaded into one reused notification) hold what `next()` gives, in
    /// every format (btsnoop H4's runs of values read in one loop), for every
    /// batch size and for one device alone.
    @Test func flatBatchesHoldWhatNextGivesInEveryFormat() throws {
        for format in [CaptureFileWriter.Format.btsnoopH4, .btsnoopUART, .pcapngH4] {
            let path = try Self.file(Self.interleavedCapture(as: format), "\(#function)-\(format)")
            let capture = CaptureImport(files: [path])
            let inventory = try capture.survey()
            #expect(inventory.devices.count == 2, "\(format)")
            for only in [nil, 0, 1] as [Int?] {
                var extractor = try capture.extractor(for: inventory, only: only)
                var outputs: [CaptureOutput] = []
                while let output = try extractor.next() { outputs.append(output) }
                #expect(outputs.count >= (only == nil ? 4 : 1), "\(format) only \(String(describing: only))")
                for limit in [1, 2, 3, 1_000] {
                    var batched = try capture.extractor(for: inventory, only: only)
                    var all: [CaptureOutput] = []
                    var reused = RawNotification(
                        characteristic: CharacteristicUUID(short: 0), bytes: [9, 9], receiveTime: 0)
                    var more = true
                    while more {
                        var batch = CaptureOutputBatch()
                        more = try batched.next(into: &batch, upTo: limit)
                        #expect(more ? batch.count == limit : batch.count < limit)
                        for entry in batch.entries {
                            let output = batch.output(entry)
                            all.append(output)
                            guard entry.device >= 0 else { continue }
                            batch.load(entry, into: &reused)
                            #expect(output == .notification(device: entry.device, reused))
                        }
                    }
                    #expect(all == outputs, "\(format) only \(String(describing: only)) limit \(limit)")
                }
            }
        }
    }

    @Test func aCaptureWithNothingToRecordLeavesNoRecording() async throws {
        var traffic = HCITrafficBuilder()
        traffic.advertise(Self.first, data: [2, 1, 6])
        let path = try Self.file(CaptureFileWriter.write(traffic.packets, as: .btsnoopH4))
        let directory = makeTemporaryDirectory() + "/rec"
        for existing in [false, true] {
            if existing {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            let session = RecordingSession(importing: CaptureImport(files: [path]), directory: directory)
            var message = ""
            do {
                _ = try await session.record()
            } catch let error as CaptureFileError {
                message = error.message
            }
            #expect(message.contains("no device with values (notifications, indications or reads) in 1 packets"))
            #expect(session.captureInventory?.otherPeers.count == 1)
            // The directory given empty stays, empty; one that was not there is not made.
            #expect(FileManager.default.fileExists(atPath: directory) == existing)
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).isEmpty)
        }
    }
}
