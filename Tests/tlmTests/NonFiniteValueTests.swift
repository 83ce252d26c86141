import Foundation
import Recording
import TestSupport
import Testing

/// Issue 36, item 8: derived values that are infinite (`x/0`) or NaN are
/// recorded as such, and every verb reads the recording: verify finds it
/// sound, recover has nothing to do, aggregates count every message and
/// say infinity where the values are infinite, report and plot draw it.
@Suite struct NonFiniteValueTests {
    static let pipeline = """
        name: nonfinite
        devices:
          - name: imu
            family: diot
            source:
              simulated: {seed: 1, scenario: clean, rate: 50}
        record:
          - /diot/*/acc_x
        derived:
          - name: ratio
            combineLatest: {x: /diot/*/acc_x, y: /diot/*/acc_y}
            value: x / 0
          - name: nothing
            combineLatest: {x: /diot/*/acc_x, y: /diot/*/acc_y}
            value: (x - x) / 0
          - name: huge
            combineLatest: {x: /diot/*/acc_x, y: /diot/*/acc_y}
            value: 1 / 0 + y * 0
        """

    @Test func infiniteAndNaNValuesAreReadByEveryVerb() throws {
        let directory = makeTemporaryDirectory()
        let file = directory + "/p.yaml"
        try Self.pipeline.write(toFile: file, atomically: true, encoding: .utf8)
        let recording = directory + "/r"
        let record = try tlm("record", "--pipeline", file, "--duration", "2s", "-o", recording, "-q")
        #expect(record.status == 0, "\(record.errors)")
        let verify = try tlm("verify", recording)
        #expect(verify.status == 0, "\(verify.output) \(verify.errors)")
        let recover = try tlm("recover", recording)
        #expect(recover.status == 0 && recover.output.contains("Nothing to recover"), "\(recover.output)")

        let reader = try RecordingReader(directory: recording)
        for (topic, minimum, maximum) in [
            ("/derived/huge", "inf", "inf"), ("/derived/ratio", "-inf", "inf"), ("/derived/nothing", "", ""),
        ] {
            let messages = try reader.messages(topics: [topic]).count
            #expect(messages > 50, "\(topic)")
            for time in ["receive", "sample"] {
                let query = try tlm(
                    "query", recording, "--topic", topic, "--every", "1s", "--agg", "count,min,max", "--format", "csv",
                    "--time", time)
                #expect(query.status == 0, "\(topic): \(query.errors)")
                let rows = query.output.split(separator: "\n").dropFirst().map {
                    $0.split(separator: ",", omittingEmptySubsequences: false)
                }
                // Every message is counted, NaN ones too.
                #expect(rows.map { Int($0[2])! }.reduce(0, +) == messages, "\(topic) \(time): \(query.output)")
                // A bucket of x/0 may hold one sign only: each bound is an infinity, and the range holds both.
                let bounds = rows.flatMap { [String($0[3]), String($0[4])] }
                if topic == "/derived/ratio" {
                    #expect(bounds.allSatisfy { $0 == "inf" || $0 == "-inf" } && Set(bounds) == [minimum, maximum])
                } else {
                    #expect(
                        rows.allSatisfy { $0[3] == minimum && $0[4] == maximum }, "\(topic) \(time): \(query.output)")
                }
            }
        }
        for output in ["r.html", "r.svg", "r.png"] {
            let verb = output.hasSuffix(".html") ? "report" : "plot"
            let drawn = try tlm(verb, recording, "-o", directory + "/" + output)
            #expect(drawn.status == 0, "\(verb) \(output): \(drawn.errors)")
        }
    }
}
