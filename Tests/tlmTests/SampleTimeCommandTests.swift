import Foundation
import ROS2
import Recording
import Testing

/// `--time sample|receive` on the reading verbs, and `tlm info`'s clocks, on
/// a recording whose sample times (publish_time) differ from its receive
/// times (log_time).
///
/// Times in milliseconds after 1 s: `/dev/a/x` (stamped) received at 20,
/// 30, 40, measured at 2, 12, 22 (values 1, 2, 3); `/dev/b/y` (stamped)
/// received at 11, 21, 31, measured at 10, 20, 30 (values 10, 20, 30); a
/// clock stream `/dev/a/clock/x` with two models.
@Suite struct SampleTimeCommandTests {
    static let value = MessageSchema(name: "test/msg/Value", text: "float64 value")
    static let clock = MessageSchema(
        name: "tlm/msg/ClockModel",
        text: """
            string clock
            string kind
            float64 nominal_rate
            uint32 epoch
            int64 offset_ns
            float64 drift_ppm
            float64 jitter_ns
            uint32 fit_size
            int64 span_ns
            """)

    static func at(_ milliseconds: UInt64) -> UInt64 { 1_000_000_000 + milliseconds * 1_000_000 }

    /// The recording; `stamped: false` writes it the old way (no stamp, publish_time = log_time, no clock).
    static func make(stamped: Bool, lastDrift: Double = -12.25, lastSpan: Int64 = 20_000_000) throws -> String {
        let directory = temporaryPath("sampletime")
        let recorder = try Recorder(
            directory: directory, session: .init(name: "sample", source: "simulate", host: "test-host"), startTime: 0)
        let schema = stamped ? value.stamped : value
        let a = try recorder.addStream(
            StreamDescriptor(topic: "/dev/a/x", kind: .typed, schema: schema, isNumeric: true))
        let b = try recorder.addStream(
            StreamDescriptor(topic: "/dev/b/y", kind: .typed, schema: schema, isNumeric: true))
        for (stream, log, publish, number) in [
            (b, 11, 10, 10.0), (a, 20, 2, 1.0), (b, 21, 20, 20.0), (a, 30, 12, 2.0), (b, 31, 30, 30.0),
            (a, 40, 22, 3.0),
        ] as [(StreamHandle, UInt64, UInt64, Double)] {
            var cdr = CDRWriter()
            if stamped { cdr.writeTime(nanoseconds: at(publish)) }
            cdr.write(number)
            try recorder.write(
                stream, logTime: at(log), publishTime: at(stamped ? publish : log), payload: cdr.bytes,
                numericValue: number)
        }
        if stamped {
            let models = try recorder.addStream(
                StreamDescriptor(topic: "/dev/a/clock/x", kind: .typed, schema: clock.stamped))
            for (log, drift, jitter, fit) in [(15, 3.5, 2_000_000.0, 4), (35, lastDrift, 1_500_000.0, 9)]
                as [(UInt64, Double, Double, UInt32)]
            {
                var cdr = CDRWriter()
                cdr.writeTime(nanoseconds: at(log))
                cdr.write("x")
                cdr.write("ticks")
                cdr.write(1000.0)
                cdr.write(UInt32(2))
                cdr.write(Int64(7))
                cdr.write(drift)
                cdr.write(jitter)
                cdr.write(fit)
                cdr.write(log == 35 ? lastSpan : 20_000_000)
                try recorder.write(models, logTime: at(log), publishTime: at(log), payload: cdr.bytes)
            }
        }
        try recorder.close(at: at(50))
        return directory
    }

    static let recording = try! make(stamped: true)

    @Test func queryRowsAreInTheTimeAskedForAndItsRange() throws {
        let sample = try tlm(
            "query", Self.recording, "--topic", "/dev/*/?", "--from", "+10ms", "--to", "+21ms", "--format", "csv")
        #expect(sample.status == 0, "\(sample.errors)")
        // +10ms from the first sample (x@2): 12 ..< 23 ms by sample time; x@22 was received at 40 ms.
        #expect(
            sample.output == """
                time,topic,stamp,value
                1970-01-01T00:00:01.012Z,/dev/a/x,1012000000,2.0
                1970-01-01T00:00:01.020Z,/dev/b/y,1020000000,20.0
                1970-01-01T00:00:01.022Z,/dev/a/x,1022000000,3.0

                """)
        let receive = try tlm(
            "query", Self.recording, "--topic", "/dev/*/?", "--from", "+10ms", "--to", "+21ms", "--format", "csv",
            "--time", "receive")
        #expect(receive.status == 0, "\(receive.errors)")
        // +10ms from the first message received (y@11): 21 ..< 32 ms by receive time.
        #expect(
            receive.output == """
                time,topic,stamp,value
                1970-01-01T00:00:01.021Z,/dev/b/y,1020000000,20.0
                1970-01-01T00:00:01.030Z,/dev/a/x,1012000000,2.0
                1970-01-01T00:00:01.031Z,/dev/b/y,1030000000,30.0

                """)
        let buckets = try tlm(
            "query", Self.recording, "--topic", "/dev/a/x", "--every", "10ms", "--agg", "count,mean", "--format", "csv",
            "--to", "1970-01-01T00:00:01.030Z")
        #expect(buckets.status == 0, "\(buckets.errors)")
        #expect(
            buckets.output == """
                topic,bucket_start,count,mean
                /dev/a/x,1970-01-01T00:00:01.000Z,1,1.0
                /dev/a/x,1970-01-01T00:00:01.010Z,1,2.0
                /dev/a/x,1970-01-01T00:00:01.020Z,1,3.0

                """)
    }

    @Test func catPrintsInTheTimeAskedFor() throws {
        let sample = try tlm("cat", Self.recording, "--topic", "/dev/*/?", "--format", "table", "--to", "+10ms")
        #expect(sample.status == 0, "\(sample.errors)")
        #expect(
            sample.output == """
                1970-01-01T00:00:01.002Z  /dev/a/x  stamp=1002000000 value=1.0
                1970-01-01T00:00:01.010Z  /dev/b/y  stamp=1010000000 value=10.0

                """)
        let receive = try tlm(
            "cat", Self.recording, "--topic", "/dev/*/?", "--format", "table", "--to", "+10ms", "--time", "receive")
        #expect(receive.status == 0, "\(receive.errors)")
        #expect(
            receive.output == """
                1970-01-01T00:00:01.011Z  /dev/b/y  stamp=1010000000 value=10.0
                1970-01-01T00:00:01.020Z  /dev/a/x  stamp=1002000000 value=1.0

                """)
    }

    @Test func exportSelectsByTheTimeAskedFor() throws {
        let output = temporaryPath("sampletime-export") + ".jsonl"
        let result = try tlm(
            "export", Self.recording, "--format", "jsonl", "--topic", "/dev/a/x", "--from", "1012000000",
            "--to", "1023000000", "--output", output, "-q")
        #expect(result.status == 0, "\(result.errors)")
        #expect(
            try String(contentsOfFile: output, encoding: .utf8) == """
                {"fields":{"stamp":1012000000,"value":2.0},"log_time":1030000000,"publish_time":1012000000,"topic":"/dev/a/x"}
                {"fields":{"stamp":1022000000,"value":3.0},"log_time":1040000000,"publish_time":1022000000,"topic":"/dev/a/x"}

                """)
    }

    @Test func anOldRecordingPrintsTheSameInBothTimes() throws {
        let old = try Self.make(stamped: false)
        for arguments in [
            ["query", old, "--topic", "/dev/**", "--from", "+5ms", "--format", "csv"],
            ["query", old, "--topic", "/dev/**", "--every", "10ms", "--format", "csv"],
            ["cat", old, "--format", "table"],
            ["cat", old, "--to", "+20ms"],
        ] {
            let sample = try tlm(arguments + ["--time", "sample"], environment: [:])
            let receive = try tlm(arguments + ["--time", "receive"], environment: [:])
            #expect(sample.status == 0 && receive.status == 0, "\(sample.errors) \(receive.errors)")
            #expect(!sample.output.isEmpty && sample.output == receive.output, "\(arguments)")
        }
        let info = try tlm("info", old)
        #expect(info.status == 0 && !info.output.contains("Clocks"), "\(info.errors)")
    }

    @Test func infoShowsEachClocksLatestDriftAndJitter() throws {
        let table = try tlm("info", Self.recording)
        #expect(table.status == 0, "\(table.errors)")
        let lines = table.output.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("Clocks") })
        #expect(lines[start] == "Clocks      1 (latest model of each; docs/time.md)")
        #expect(
            lines[start + 1].split(separator: " ") == [
                "TOPIC", "KIND", "DRIFT", "JITTER", "FIT", "EPOCH", "UPDATES",
            ])
        #expect(
            lines[start + 2].split(separator: " ") == [
                "/dev/a/clock/x", "ticks", "-12.25", "ppm", "1.500", "ms", "9", "2", "2",
            ])
        let json = try tlm("info", Self.recording, "--format", "json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let clocks = try #require(object["clocks"] as? [[String: Any]])
        #expect(clocks.count == 1)
        #expect(clocks.first?["drift_ppm"] as? Double == -12.25)
        #expect(clocks.first?["jitter_nanoseconds"] as? Double == 1_500_000)
        #expect(clocks.first?["fit_size"] as? Int == 9 && clocks.first?["epoch"] as? Int == 2)
        #expect(clocks.first?["topic"] as? String == "/dev/a/clock/x")
        #expect(!table.output.contains("bound"))
    }

    /// A settled fit held at the drift bound says the nominal rate is wrong (a Jacquard tag whose ticks
    /// are not milliseconds, say): `info` says so under the table. A fit of a few close points (less
    /// than 10 s) can reach the bound by jitter alone: nothing is said.
    @Test(arguments: [1000.000_000_000_000_9, -1000.0, 999.6])
    func infoSaysWhenADriftSitsAtItsBound(drift: Double) throws {
        let table = try tlm("info", try Self.make(stamped: true, lastDrift: drift, lastSpan: 60_000_000_000))
        #expect(table.status == 0, "\(table.errors)")
        #expect(
            table.output.contains(
                "  /dev/a/clock/x: the drift sits at its bound (±1000 ppm): its nominal rate (1000 per second) "
                    + "is likely wrong (docs/time.md)\n"), "\(table.output)")
        let below = try tlm("info", try Self.make(stamped: true, lastDrift: 999.4, lastSpan: 60_000_000_000))
        #expect(below.status == 0 && !below.output.contains("bound"), "\(below.output)")
        let unsettled = try tlm("info", try Self.make(stamped: true, lastDrift: drift, lastSpan: 9_999_999_999))
        #expect(unsettled.status == 0 && !unsettled.output.contains("bound"), "\(unsettled.output)")
    }

    @Test(arguments: [
        (["--time", "sample", "--time", "receive"], "--time is given twice; --time takes one value: give it once"),
        (["--time", "wall"], "The value 'wall' is invalid for '--time <sample|receive>'"),
        (["--time"], "Missing value for '--time <sample|receive>'"),
    ])
    func aBadOrRepeatedTimeIsAUsageError(extra: [String], expected: String) throws {
        for verb in [["query", Self.recording, "--topic", "/dev/**"], ["cat", Self.recording]] {
            let result = try tlm(verb + extra, environment: [:])
            #expect(result.status == 1, "\(result.errors)")
            #expect(result.errors.contains(expected), "\(result.errors)")
            #expect(result.output.isEmpty)
        }
    }
}
