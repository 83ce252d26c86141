import Foundation
import Locking
import TestSupport
import Testing

@testable import Recording

/// What a recorder tells its observer: each stream as it is added and each
/// message as it is written, in order, to the observer set at the time.
@Suite struct RecorderObserverTests {
    /// What an observer was told.
    final class Sink: Sendable {
        struct Message: Equatable {
            var channelID: UInt16
            var logTime: UInt64
            var payload: [UInt8]
        }

        fileprivate let state = Locked<(streams: [(String, UInt16)], messages: [Message])>(([], []))

        var streams: [(String, UInt16)] { state.withLock { $0.streams } }
        var messages: [Message] { state.withLock { $0.messages } }
    }

    /// Keeps what it is told in its sink (which outlives it).
    final class Log: RecorderObserver {
        let sink: Sink
        init(_ sink: Sink) { self.sink = sink }

        func recorder(didAddStream descriptor: StreamDescriptor, channelID: UInt16) {
            sink.state.withLock { $0.streams.append((descriptor.topic, channelID)) }
        }

        func recorder(didWrite channelID: UInt16, logTime: UInt64, payload: UnsafeRawBufferPointer) {
            let message = Sink.Message(channelID: channelID, logTime: logTime, payload: Array(payload))
            sink.state.withLock { $0.messages.append(message) }
        }
    }

    @Test func theObserverSetAtEachWriteSeesItAndAReplacedObserverIsReleased() throws {
        let directory = makeTemporaryDirectory(#function) + "/rec"
        let recorder = try Recorder(
            directory: directory, configuration: .init(), session: .init(name: "test", source: "simulate"),
            startTime: 1_000)
        let schema = MessageSchema(name: "test/msg/Value", text: "float64 value")
        let firstSink = Sink()
        var first: Log? = Log(firstSink)
        recorder.observer = first
        let a = try recorder.addStream(StreamDescriptor(topic: "/t/a", kind: .typed, schema: schema))
        let b = try recorder.addStream(StreamDescriptor(topic: "/t/b", kind: .typed, schema: schema))
        try recorder.write(a, logTime: 10, payload: [1, 2, 3])
        try recorder.write(b, logTime: 11, payload: [])
        try recorder.write(a, logTime: 12, payload: [9])
        #expect(firstSink.streams.map(\.0) == ["/t/a", "/t/b"])
        #expect(firstSink.streams.map(\.1) == [a.channelID, b.channelID])
        #expect(
            firstSink.messages == [
                .init(channelID: a.channelID, logTime: 10, payload: [1, 2, 3]),
                .init(channelID: b.channelID, logTime: 11, payload: []),
                .init(channelID: a.channelID, logTime: 12, payload: [9]),
            ])

        // Replaced: the first sees nothing more and the recorder no longer holds it.
        let secondSink = Sink()
        let second = Log(secondSink)
        recorder.observer = second
        #expect(recorder.observer === second)
        weak let released = first
        first = nil
        #expect(released == nil)
        try recorder.write(b, logTime: 13, payload: [7])
        #expect(firstSink.messages.count == 3)
        #expect(secondSink.messages == [.init(channelID: b.channelID, logTime: 13, payload: [7])])

        // None: writes go on, seen by nobody.
        recorder.observer = nil
        try recorder.write(a, logTime: 14, payload: [8])
        #expect(secondSink.messages.count == 1)
        try recorder.close()
    }
}
