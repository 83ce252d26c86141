import Devices
import Foundation
import TestSupport
import Testing

@testable import Recording

/// ``RecordingFollower`` on a recording being written in this process.
@Suite struct RecordingFollowerTests {
    @Test func eachPollReturnsTheMessagesOfTheChunksIndexedSinceAndTheLockSaysWhenItEnds() throws {
        var configuration = RecorderConfiguration()
        configuration.chunkAge = .milliseconds(1)
        configuration.segmentDuration = .nanoseconds(2_000)  // a new segment every 200 messages
        let directory = makeTemporaryDirectory("follow") + "/rec"
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "follow", source: "simulate", host: "test-host"), startTime: 0)
        let value = try recorder.addStream(
            StreamDescriptor(topic: "/t/value", kind: .typed, schema: RecordingExportTests.value))
        let label = try recorder.addStream(
            StreamDescriptor(topic: "/t/label", kind: .event, schema: RecordingExportTests.label))
        let follower = try RecordingFollower(directory: directory, from: 1_000) { $0 == "/t/value" }
        #expect(follower.isBeingWritten)
        #expect(try follower.poll().isEmpty)
        var written: [UInt64] = []
        var time: UInt64 = 0
        for round in 0..<20 {
            var expected: [UInt64] = []
            for _ in 0..<50 {
                time += 10
                try recorder.write(value, logTime: time, payload: RecordingExportTests.valuePayload(Double(time)))
                try recorder.write(label, logTime: time, payload: RecordingExportTests.labelPayload(1, "x", 0))
                if time >= 1_000 { expected.append(time) }
            }
            try recorder.closeChunkIfDue(now: time + 1_000_000_000)
            let polled = try follower.poll()
            #expect(polled.map(\.logTime) == expected, "round \(round)")
            #expect(polled.allSatisfy { $0.topic == "/t/value" })
            written += expected
        }
        #expect(Set(follower.topics.keys) == ["/t/value"])
        try recorder.close(at: time + 1)
        #expect(!follower.isBeingWritten)
        #expect(try follower.poll().isEmpty)
        // Several segments were followed, and the follower saw every message the reader sees.
        let reader = try RecordingReader(directory: directory)
        #expect(try reader.segmentPaths().count > 1)
        #expect(written == (try reader.messages(topics: ["/t/value"], from: 1_000)).map(\.logTime))
    }
}
