import DeviceRecording
import Foundation
import Quantities
import ROS2
import RecordingExport
import RecordingQueries
import TestSupport
import Testing

@testable import Recording

/// A recording whose typed messages' sample times (publish_time) differ
/// from their receive times (log_time), so that sample-time order differs
/// from receive order across topics.
///
/// Times in milliseconds after 1 s (`SampleTimeFixture.at`):
///
/// | topic | log | publish | value |
/// |---|---|---|---|
/// | /dev/a/x (stamped, numeric) | 20, 30, 40 | 2, 12, 22 | 1, 2, 3 |
/// | /dev/b/y (stamped, numeric) | 11, 21, 31 | 10, 20, 30 | 10, 20, 30 |
/// | /dev/b/note (not stamped) | 15, 25 | = log | count 1, 2 |
///
/// Receive order: b1 n1 a1 b2 n2 a2 b3 a3; sample order: a1 b1 a2 n1 b2 a3 n2 b3.
enum SampleTimeFixture {
    static let value = MessageSchema(name: "test/msg/Value", text: "float64 value")
    static let note = MessageSchema(name: "test/msg/Note", text: "int32 count")

    /// 1 s plus `milliseconds`, in nanoseconds.
    static func at(_ milliseconds: UInt64) -> UInt64 { 1_000_000_000 + milliseconds * 1_000_000 }

    /// A stamped value's payload.
    static func stamped(_ publish: UInt64, _ value: Double) -> [UInt8] {
        var writer = CDRWriter()
        writer.writeTime(nanoseconds: publish)
        writer.write(value)
        return writer.bytes
    }

    /// A note's payload.
    static func note(_ count: Int32) -> [UInt8] {
        var writer = CDRWriter()
        writer.write(count)
        return writer.bytes
    }

    /// The recording; `stamped: false` writes the old way (no stamp field, publish_time = log_time).
    static func make(stamped: Bool = true, _ label: String = #function) throws -> String {
        let directory = makeTemporaryDirectory(label) + "/rec"
        let recorder = try Recorder(
            directory: directory, session: .init(name: "sample", source: "simulate", host: "test-host"), startTime: 0)
        let schema = stamped ? value.stamped : value
        let a = try recorder.addStream(
            StreamDescriptor(topic: "/dev/a/x", kind: .typed, schema: schema, isNumeric: true))
        let b = try recorder.addStream(
            StreamDescriptor(topic: "/dev/b/y", kind: .typed, schema: schema, isNumeric: true))
        let n = try recorder.addStream(StreamDescriptor(topic: "/dev/b/note", kind: .event, schema: note))
        let writes: [(StreamHandle, log: UInt64, publish: UInt64, value: Double)] = [
            (b, 11, 10, 10), (n, 15, 15, 1), (a, 20, 2, 1), (b, 21, 20, 20), (n, 25, 25, 2), (a, 30, 12, 2),
            (b, 31, 30, 30), (a, 40, 22, 3),
        ]
        for write in writes {
            let isNote = write.0 == n
            let publish = stamped && !isNote ? write.publish : write.log
            let payload =
                isNote
                ? note(Int32(write.value))
                : stamped ? Self.stamped(at(publish), write.value) : RecordingExportTests.valuePayload(write.value)
            try recorder.write(
                write.0, logTime: at(write.log), publishTime: at(publish), payload: payload,
                numericValue: isNote ? nil : write.value)
        }
        try recorder.close(at: at(50))
        return directory
    }

    /// Each message as `topic@milliseconds` of its time in `time`.
    /// A recording of `/dev/a/x` alone whose messages are received at 10, 20, … ms and published at
    /// `publishes` ms (after 1 s): sample times that a test wants wrong (after receipt, or going back).
    static func make(publishedAt publishes: [UInt64], _ label: String = #function) throws -> String {
        let directory = makeTemporaryDirectory(label) + "/rec"
        let recorder = try Recorder(
            directory: directory, session: .init(name: "bad", source: "simulate", host: "test-host"), startTime: 0)
        let a = try recorder.addStream(StreamDescriptor(topic: "/dev/a/x", kind: .typed, schema: value.stamped))
        for (index, publish) in publishes.enumerated() {
            try recorder.write(
                a, logTime: at(UInt64(10 * (index + 1))), publishTime: at(publish), payload: stamped(at(publish), 1))
        }
        try recorder.close(at: at(50))
        return directory
    }

    static func marks(_ messages: [RecordedMessage], _ time: MessageTime, stamped: Bool = true) -> [String] {
        messages.map { message in
            let instant = time.of(message, stamped: stamped && message.topic != "/dev/b/note")
            return "\(message.topic.split(separator: "/").last!)@\((instant - 1_000_000_000) / 1_000_000)"
        }
    }

    /// Every message of a source in `time`, in the range.
    static func read(
        _ path: String, _ time: MessageTime, from: UInt64? = nil, to: UInt64? = nil
    ) throws -> [RecordedMessage] {
        let source = try RecordingSource(path: path)
        let cursor = try source.messageCursor(
            topics: try source.exportContext(topics: source.topics).topics, from: from, to: to, time: time)
        var messages: [RecordedMessage] = []
        while let message = try cursor.next() { messages.append(message) }
        return messages
    }
}

@Suite struct SampleTimeReadTests {
    @Test func sampleTimeOrdersAcrossTopicsWhereReceiveTimeOrdersOtherwise() throws {
        let directory = try SampleTimeFixture.make()
        #expect(
            SampleTimeFixture.marks(try SampleTimeFixture.read(directory, .sample), .sample) == [
                "x@2", "y@10", "x@12", "note@15", "y@20", "x@22", "note@25", "y@30",
            ])
        #expect(
            SampleTimeFixture.marks(try SampleTimeFixture.read(directory, .receive), .receive) == [
                "y@11", "note@15", "x@20", "y@21", "note@25", "x@30", "y@31", "x@40",
            ])
    }

    @Test func aSampleTimeRangeSelectsBySampleTimeAndMissesNoLateDelivery() throws {
        let directory = try SampleTimeFixture.make()
        let (from, to) = (SampleTimeFixture.at(12), SampleTimeFixture.at(25))
        // x@22 was received at 40 ms, after the range's end: it is still in the range by sample time.
        #expect(
            SampleTimeFixture.marks(try SampleTimeFixture.read(directory, .sample, from: from, to: to), .sample)
                == ["x@12", "note@15", "y@20", "x@22"])
        #expect(
            SampleTimeFixture.marks(try SampleTimeFixture.read(directory, .receive, from: from, to: to), .receive)
                == ["note@15", "x@20", "y@21"])
        // A lone MCAP file (an export) reads the same.
        let file = makeTemporaryDirectory() + "/all.mcap"
        let source = try RecordingSource(path: directory)
        try source.export(
            topics: source.topics, time: .receive, into: try MCAPExporter(sink: try FileByteSink(creating: file)))
        #expect(
            SampleTimeFixture.marks(try SampleTimeFixture.read(file, .sample, from: from, to: to), .sample)
                == ["x@12", "note@15", "y@20", "x@22"])
    }

    @Test func theSpanInSampleTimeStartsAtTheEarliestSample() throws {
        let directory = try SampleTimeFixture.make()
        let reader = try RecordingReader(directory: directory)
        #expect(try reader.timeSpan(time: .sample)! == (SampleTimeFixture.at(2), SampleTimeFixture.at(40)))
        #expect(try reader.timeSpan(time: .receive)! == (SampleTimeFixture.at(11), SampleTimeFixture.at(40)))
        let source = try RecordingSource(path: directory)
        #expect(try source.timeSpan(time: .sample)! == (SampleTimeFixture.at(2), SampleTimeFixture.at(40)))
        #expect(try reader.sampleTimeTopics() == ["/dev/a/x", "/dev/b/y"])
    }

    @Test func catLinesShowTheTimeAskedForAndJSONCarriesBoth() throws {
        let source = try RecordingSource(path: try SampleTimeFixture.make())
        var sample = MessageLinePrinter(format: .table, time: .sample)
        let sampleLines = MemoryByteSink()
        try sample.write(
            source, topics: ["/dev/a/x", "/dev/b/note"], from: SampleTimeFixture.at(0), to: SampleTimeFixture.at(16),
            into: sampleLines)
        #expect(
            String(decoding: sampleLines.bytes, as: UTF8.self) == """
                1970-01-01T00:00:01.002Z  /dev/a/x  stamp=1002000000 value=1.0
                1970-01-01T00:00:01.012Z  /dev/a/x  stamp=1012000000 value=2.0
                1970-01-01T00:00:01.015Z  /dev/b/note  count=1

                """)
        var receive = MessageLinePrinter(format: .table, time: .receive)
        let receiveLines = MemoryByteSink()
        try receive.write(
            source, topics: ["/dev/a/x", "/dev/b/note"], from: SampleTimeFixture.at(0), to: SampleTimeFixture.at(16),
            into: receiveLines)
        #expect(
            String(decoding: receiveLines.bytes, as: UTF8.self)
                == "1970-01-01T00:00:01.015Z  /dev/b/note  count=1\n")
        var json = MessageLinePrinter(format: .jsonl)
        let jsonLines = MemoryByteSink()
        try json.write(source, topics: ["/dev/a/x"], to: SampleTimeFixture.at(3), into: jsonLines)
        #expect(
            String(decoding: jsonLines.bytes, as: UTF8.self)
                == "{\"fields\":{\"stamp\":1002000000,\"value\":1.0},\"log_time\":1020000000,"
                + "\"publish_time\":1002000000,\"topic\":\"/dev/a/x\"}\n")
    }

    @Test func aCSVExportIsInTheOrderAndRangeOfTheTimeAskedFor() throws {
        let source = try RecordingSource(path: try SampleTimeFixture.make())
        func export(_ time: MessageTime) throws -> String {
            let sink = MemoryByteSink()
            try source.export(
                topics: ["/dev/a/x", "/dev/b/y"], from: SampleTimeFixture.at(10), to: SampleTimeFixture.at(22),
                time: time, into: CSVExporter(sink: sink))
            return String(decoding: sink.bytes, as: UTF8.self)
        }
        #expect(
            try export(.sample) == """
                log_time,publish_time,topic,stamp,value
                1011000000,1010000000,/dev/b/y,1010000000,10.0
                1030000000,1012000000,/dev/a/x,1012000000,2.0
                1021000000,1020000000,/dev/b/y,1020000000,20.0

                """)
        #expect(
            try export(.receive) == """
                log_time,publish_time,topic,stamp,value
                1011000000,1010000000,/dev/b/y,1010000000,10.0
                1020000000,1002000000,/dev/a/x,1002000000,1.0
                1021000000,1020000000,/dev/b/y,1020000000,20.0

                """)
    }

    @Test func queryRowsAndBucketsAreInTheTimeAskedFor() throws {
        let reader = try RecordingReader(directory: try SampleTimeFixture.make())
        func rows(_ time: MessageTime) throws -> [String] {
            let query = RecordingQuery(
                reader: reader, topics: ["/dev/a/x", "/dev/b/y"], from: SampleTimeFixture.at(0),
                to: SampleTimeFixture.at(21), time: time)
            var rows: [String] = []
            try query.forEachMessageRow(columns: { _ in }) { row in
                rows.append("\(row.topic)@\((row.time - 1_000_000_000) / 1_000_000)=\(row.values.last ?? "")")
            }
            return rows
        }
        #expect(try rows(.sample) == ["/dev/a/x@2=1.0", "/dev/b/y@10=10.0", "/dev/a/x@12=2.0", "/dev/b/y@20=20.0"])
        #expect(try rows(.receive) == ["/dev/b/y@11=10.0", "/dev/a/x@20=1.0"])

        func counts(_ time: MessageTime) throws -> [Int] {
            try reader.aggregate(
                topic: "/dev/a/x", from: SampleTimeFixture.at(0), to: SampleTimeFixture.at(41),
                every: .milliseconds(10),
                time: time
            ).buckets.map(\.count)
        }
        #expect(try counts(.sample) == [1, 1, 1, 0, 0])
        #expect(try counts(.receive) == [0, 0, 1, 1, 1])
        let sampled = try reader.aggregate(
            topic: "/dev/a/x", from: SampleTimeFixture.at(0), to: SampleTimeFixture.at(30), every: .milliseconds(30),
            time: .sample
        ).buckets
        #expect(sampled.map(\.mean) == [2.0])
        #expect(sampled.map(\.first) == [1.0] && sampled.map(\.last) == [3.0])
        let counted = try reader.countMessages(
            topic: "/dev/b/y", from: SampleTimeFixture.at(0), to: SampleTimeFixture.at(20), every: .milliseconds(20),
            keepingFirstAndLast: true, time: .sample
        ).buckets
        #expect(counted.map(\.count) == [1])
        #expect(counted.first?.first?.publishTime == SampleTimeFixture.at(10))
    }

    @Test func aRecordingWithoutSampleTimesReadsTheSameInBothTimes() throws {
        let directory = try SampleTimeFixture.make(stamped: false)
        let sample = try SampleTimeFixture.read(directory, .sample, from: SampleTimeFixture.at(12))
        let receive = try SampleTimeFixture.read(directory, .receive, from: SampleTimeFixture.at(12))
        #expect(sample == receive)
        #expect(
            SampleTimeFixture.marks(sample, .receive, stamped: false) == [
                "note@15", "x@20", "y@21", "note@25", "x@30", "y@31", "x@40",
            ])
        let source = try RecordingSource(path: directory)
        func lines(_ time: MessageTime) throws -> String {
            var printer = MessageLinePrinter(format: .table, time: time)
            let sink = MemoryByteSink()
            try printer.write(source, topics: source.topics, into: sink)
            return String(decoding: sink.bytes, as: UTF8.self)
        }
        #expect(try lines(.sample) == lines(.receive))
        #expect(try source.timeSpan(time: .sample)! == source.timeSpan(time: .receive)!)
        let reader = try RecordingReader(directory: directory)
        #expect(
            try reader.aggregate(
                topic: "/dev/a/x", from: SampleTimeFixture.at(0), to: SampleTimeFixture.at(41),
                every: .milliseconds(10), time: .sample
            ).buckets
                == reader.aggregate(
                    topic: "/dev/a/x", from: SampleTimeFixture.at(0), to: SampleTimeFixture.at(41),
                    every: .milliseconds(10), time: .receive
                ).buckets)
    }

    @Test func aSampleTimeAfterItsReceiveTimeOrGoingBackIsAnError() throws {
        for (publishes, expected) in [
            ([5, 30], "/dev/a/x message 1: its sample time (publish_time 1030000000) is after its receive time"),
            ([5, 3], "/dev/a/x message 1: its sample time (publish_time 1003000000) is before the previous"),
        ] as [([UInt64], String)] {
            let directory = try SampleTimeFixture.make(publishedAt: publishes)
            let error = #expect(throws: RecordingError.self) { try SampleTimeFixture.read(directory, .sample) }
            #expect(error?.code == .corrupt)
            #expect(error?.message.hasPrefix(expected) == true, "\(error?.message ?? "")")
            #expect(try SampleTimeFixture.read(directory, .receive).count == 2)
            // Rows of the one topic (read with payloads lent by their chunks) check the same.
            let query = RecordingQuery(
                reader: try RecordingReader(directory: directory), topics: ["/dev/a/x"], from: 0, to: .max,
                time: .sample)
            let sink = MemoryByteSink()
            let rowError = #expect(throws: RecordingError.self) {
                try query.writeMessageRows(.csv, times: TimeText(zone: TimeZone(identifier: "UTC")!), into: sink)
            }
            #expect(rowError?.message.hasPrefix(expected) == true, "\(rowError?.message ?? "")")
            #expect(String(decoding: sink.bytes, as: UTF8.self).split(separator: "\n").count == 2)
        }
    }

    @Test func aFollowerOrdersAndSelectsByTheTimeAskedFor() throws {
        let directory = try SampleTimeFixture.make()
        let sample = try RecordingFollower(
            directory: directory, from: SampleTimeFixture.at(12), to: SampleTimeFixture.at(25), time: .sample
        ) { _ in true }
        #expect(SampleTimeFixture.marks(try sample.poll(), .sample) == ["x@12", "note@15", "y@20", "x@22"])
        let receive = try RecordingFollower(
            directory: directory, from: SampleTimeFixture.at(12), to: SampleTimeFixture.at(25), time: .receive
        ) { _ in true }
        #expect(SampleTimeFixture.marks(try receive.poll(), .receive) == ["note@15", "x@20", "y@21"])
    }

    @Test func infoReadsEachClockStreamsLatestModel() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, session: .init(name: "clocks", source: "simulate", host: "test-host"), startTime: 0)
        let clock = try recorder.addStream(
            StreamDescriptor(topic: "/jacquard/d_0A/clock/imu", kind: .typed, schema: ClockModelMessage.schema.stamped))
        for (index, (drift, jitter, fit, epoch)) in [(12.5, 900_000.0, 10, 0), (-40.25, 1_250_000.0, 240, 1)]
            .enumerated()
        {
            var cdr = CDRWriter()
            let log = SampleTimeFixture.at(UInt64(1000 * index))
            cdr.writeTime(nanoseconds: log)
            cdr.write("imu")
            cdr.write("ticks")
            cdr.write(1000.0)
            cdr.write(UInt32(epoch))
            cdr.write(Int64(-5_000_000))
            cdr.write(drift)
            cdr.write(jitter)
            cdr.write(UInt32(fit))
            cdr.write(Int64(60_000_000_000))
            try recorder.write(clock, logTime: log, publishTime: log, payload: cdr.bytes)
        }
        try recorder.close(at: SampleTimeFixture.at(3000))
        let info = try RecordingInfo.load(from: directory).loadingClocks()
        #expect(
            info.clocks == [
                RecordingInfo.Clock(
                    topic: "/jacquard/d_0A/clock/imu", clock: "imu", kind: "ticks", nominalRate: 1000, epoch: 1,
                    offsetNanoseconds: -5_000_000, driftPPM: -40.25, jitterNanoseconds: 1_250_000, fitSize: 240,
                    spanNanoseconds: 60_000_000_000, time: SampleTimeFixture.at(1000), updates: 2)
            ])
        // A recording without clock streams: none, and nothing read.
        #expect(try RecordingInfo.load(from: try SampleTimeFixture.make()).loadingClocks().clocks == [])
    }
}
