import Foundation
import Recording
import TestSupport
import Testing

@Suite struct RecordCommandTests {
    @Test func recordsASimulatedSessionThatInfoAndThePythonReaderAgreeOn() throws {
        let output = temporaryPath()
        let record = try tlm(
            "record", "--simulate", "--duration", "2s", "--seed", "5", "--output", output,
            "--chunk-age", "500ms")
        #expect(record.status == 0, "\(record.errors)")
        #expect(record.output.contains("Recorded "))

        let info = try RecordingInfo.load(from: output)
        #expect(info.session.source == "simulate" && info.session.seed == 5 && info.session.endedAt != nil)
        #expect(info.segments.map(\.state) == ["closed"])
        #expect(info.lossCount == 0)
        // The default DIoT device: IMU at 50 Hz on 6 feature streams for 2 s.
        let accX = try #require(info.streams.first { $0.topic.hasSuffix("/acc_x") })
        #expect((98...101).contains(accX.messageCount), "\(accX.messageCount)")
        #expect(info.segments[0].chunkCount >= 4)  // 500 ms chunk age over 2 s

        let python = try readWithPython(info.segments.map { output + "/" + $0.path })
        let segment = try #require((python["segments"] as? [[String: Any]])?.first)
        let messages = try #require(segment["messages"] as? [[String: Any]])
        #expect(messages.count == info.messageCount)
        let topics = Set(messages.map { $0["topic"] as! String })
        #expect(topics == Set(info.streams.map(\.topic)))
    }

    @Test func infoPrintsTheSessionStreamsSegmentsAndCompression() throws {
        let output = temporaryPath()
        #expect(try tlm("record", "--simulate", "--duration", "1s", "--output", output).status == 0)
        let table = try tlm("info", output)
        #expect(table.status == 0)
        for label in [
            "Recording", "Session", "Started", "Ended", "Devices", "Streams", "Segments", "Compression", "Loss",
        ] {
            #expect(table.output.contains("\n" + label) || table.output.hasPrefix(label), "missing \(label)")
        }
        #expect(table.output.contains("/acc_x") && table.output.contains("tlm/msg/DiotSample"))
        #expect(table.output.contains("  000001.mcap  closed"))
        #expect(table.output.contains("Loss        none"))

        let json = try tlm("info", output, "--format", "json")
        #expect(json.status == 0)
        let decoded = try JSONOutputDecoding.decoder().decode(RecordingInfo.self, from: Data(json.output.utf8))
        // With the clocks' latest models, which `info` reads.
        #expect(decoded == (try RecordingInfo.load(from: output).loadingClocks()))
    }

    @Test func sigintClosesTheRecordingCleanly() throws {
        let output = temporaryPath()
        let running = try start(tlmPath, ["record", "--simulate", "--output", output, "--chunk-age", "200ms"])
        // Wait until the first chunk is committed, then interrupt.
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let info = try? RecordingInfo.load(from: output), info.segments.first?.chunkCount ?? 0 > 0 { break }
            usleep(50_000)
        }
        kill(running.0.processIdentifier, SIGINT)
        let result = try finish(running, timeout: .seconds(20))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("stopped by signal"))
        let info = try RecordingInfo.load(from: output)
        #expect(info.segments.map(\.state) == ["closed"])
        #expect(info.session.endedAt != nil)
        #expect(info.messageCount > 0)
        _ = try readWithPython(info.segments.map { output + "/" + $0.path })
    }

    @Test func theSameSeedGivesTheSameValues() throws {
        func values(seed: String) throws -> [String: [String]] {
            let output = temporaryPath()
            #expect(try tlm("record", "--simulate", "--duration", "1s", "--seed", seed, "--output", output).status == 0)
            let info = try RecordingInfo.load(from: output)
            let json = try readWithPython(info.segments.map { output + "/" + $0.path })
            var byFeature: [String: [String]] = [:]
            for segment in json["segments"] as! [[String: Any]] {
                for message in segment["messages"] as! [[String: Any]]
                where message["schema"] as? String == "tlm/msg/DiotSample" {
                    let feature = (message["topic"] as! String).split(separator: "/").last.map(String.init)!
                    byFeature[feature, default: []].append((message["fields"] as! [String: Any])["value"] as! String)
                }
            }
            return byFeature
        }
        let first = try values(seed: "11")
        let second = try values(seed: "11")
        let other = try values(seed: "12")
        #expect(Set(first.keys) == Set(second.keys))
        for (feature, series) in first {
            // A run may end one sample earlier or later: compare the common prefix.
            let common = min(series.count, second[feature]!.count)
            #expect(common > 0)
            #expect(Array(series.prefix(common)) == Array(second[feature]!.prefix(common)), "\(feature)")
        }
        #expect(first["acc_x"]!.prefix(20) != other["acc_x"]!.prefix(20))
    }
}

@Suite struct RecordFamiliesTests {
    @Test func recordsAllFiveFamiliesByDefault() throws {
        let output = temporaryPath()
        let result = try tlm("record", "--simulate", "--duration", "2s", "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        let info = try RecordingInfo.load(from: output)
        #expect(Set(info.devices.map(\.family)) == ["diot", "comodule", "jacquard", "fjorden", "obvious"])
        for family in ["diot", "comodule", "jacquard", "fjorden", "obvious"] {
            #expect(
                info.streams.contains { $0.topic.hasPrefix("/\(family)/") && $0.kind != "raw" && $0.messageCount > 0 },
                "no typed stream of \(family)")
        }
        #expect(info.lossCount == 0)
    }

    @Test func aChosenFamilyAloneIsRecorded() throws {
        let output = temporaryPath()
        #expect(
            try tlm("record", "--simulate", "--family", "fjorden", "--duration", "1s", "--output", output).status == 0)
        #expect(try RecordingInfo.load(from: output).devices.map(\.family) == ["fjorden"])
    }

    @Test func theFaultsScenarioRecordsLossAndExitsThree() throws {
        let output = temporaryPath()
        let result = try tlm(
            "record", "--simulate", "--scenario", "faults", "--family", "jacquard", "--duration", "3s",
            "--output", output)
        #expect(result.status == 3, "\(result.output) \(result.errors)")
        let info = try RecordingInfo.load(from: output)
        #expect(info.lossCount > 0)
        #expect(info.losses.allSatisfy { $0.reason.hasPrefix("malformed packet") })
    }
}

@Suite struct RecordStatusTests {
    @Test func withoutATerminalAPlainStatusLineComesEveryFiveSeconds() throws {
        let output = temporaryPath()
        let result = try tlm("record", "--simulate", "--family", "diot", "--duration", "6s", "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        // Status goes to stderr: stdout carries the summary only.
        let status = result.errors.split(separator: "\n").filter { $0.hasPrefix("00:05  ") }
        #expect(status.count == 1, "\(result.errors)")
        #expect(status.first?.contains(" messages  ") == true && status.first?.contains("loss 0") == true)
        #expect(!result.errors.contains("\u{1B}["))  // no terminal control codes when not on a terminal
        #expect(result.output.hasPrefix("Recorded ") && !result.output.contains("00:0"), "\(result.output)")
    }
}
