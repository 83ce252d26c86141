import CaptureFiles
import Devices
import Foundation
import TestSupport
import Testing

/// A small deterministic generator (xorshift64*).
private struct Generator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }
}

@Suite struct CaptureReaderFuzzTests {
    /// Reads a whole capture through the reader and the HCI analyzer: it
    /// must end or throw a ``CaptureFileError``, never trap.
    private static func consume(_ bytes: [UInt8]) -> (packets: Int, failed: Bool) {
        var analyzer = HCITrafficAnalyzer()
        var events: [CaptureEvent] = []
        var count = 0
        do {
            let reader = try CaptureFileReader(bytes: bytes)
            while let packet = try reader.next() {
                count += 1
                analyzer.add(packet, into: &events)
                events.removeAll(keepingCapacity: true)
            }
            analyzer.finish(at: 0, into: &events)
            return (count, false)
        } catch {
            #expect(!error.message.isEmpty)
            return (count, true)
        }
    }

    @Test(arguments: [CaptureFileWriter.Format.btsnoopMonitor, .btsnoopUART, .pcapngH4, .pcapMonitor])
    func mutatedCapturesGiveErrorsNeverTraps(format: CaptureFileWriter.Format) {
        let scenario = CaptureScenario.make(families: [.diot, .jacquard, .obvious], count: 40, unknown: true)
        let valid = CaptureFileWriter.write(scenario.packets, as: format)
        #expect(Self.consume(valid) == (scenario.packets.count, false))
        var generator = Generator(state: 0x5EED_0000 &+ UInt64(format.description.utf8.count))
        var failures = 0
        for round in 0..<(300 * fuzzScale) {
            var bytes = valid
            switch round % 5 {
            case 0:
                // Truncation anywhere.
                bytes = Array(bytes.prefix(generator.below(bytes.count)))
            case 1:
                // Random bytes flipped.
                for _ in 0..<(1 + generator.below(16)) {
                    bytes[generator.below(bytes.count)] = UInt8(truncatingIfNeeded: generator.next())
                }
            case 2:
                // An absurd length in a record or block header (big-endian btsnoop, little-endian pcap).
                let at = 16 + generator.below(max(1, bytes.count - 24))
                for offset in 0..<4 { bytes[at + offset] = 0xFF - UInt8(offset & 1) }
            case 3:
                // Garbage after a valid prefix.
                bytes =
                    Array(bytes.prefix(generator.below(bytes.count)))
                    + (0..<generator.below(4096)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            default:
                // Pure garbage with a valid magic.
                bytes =
                    Array(valid.prefix(24))
                    + (0..<generator.below(2048)).map { _ in
                        UInt8(truncatingIfNeeded: generator.next())
                    }
            }
            if Self.consume(bytes).failed { failures += 1 }
        }
        // Some of the damage is caught as errors (the rest reads as packets, or as a cut file).
        #expect(failures > 0)
    }

    @Test func pureGarbageIsAnUnknownFormat() {
        var generator = Generator(state: 42)
        for _ in 0..<(1000 * fuzzScale) {
            var bytes = (0..<generator.below(64)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if bytes.first == 0x62 || bytes.first == 0x0A || bytes.first == 0xA1 || bytes.first == 0xD4
                || bytes.first == 0x4D
            {
                bytes[0] = 0
            }
            do {
                _ = try CaptureFileReader(bytes: bytes)
                Issue.record("garbage accepted")
            } catch {
                #expect(error.kind == .unknownFormat)
            }
        }
    }

    @Test func absurdLengthsAreErrorsNotAllocations() throws {
        var header = Array("btsnoop\0".utf8) + CaptureFileWriter.be32(1) + CaptureFileWriter.be32(1002)
        header +=
            CaptureFileWriter.be32(0xFFFF_FFF0) + CaptureFileWriter.be32(0xFFFF_FFF0) + Array(repeating: 0, count: 16)
        let reader = try CaptureFileReader(bytes: header, name: "big.log")
        #expect(throws: CaptureFileError.self) { _ = try reader.next() }
        do { _ = try reader.next() } catch {
            #expect(error.message.hasPrefix("big.log: the record at byte 16 claims 4294967280 bytes"))
        }
    }
}
