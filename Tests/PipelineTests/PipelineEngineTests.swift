import Pipeline
import Recording
import Testing

/// Each operator's values and log-time instants, fed directly to the engine.
@Suite struct PipelineEngineTests {
    static let speed = "/comodule/SCOOT-0001/speed"
    static let odometer = "/comodule/SCOOT-0001/odometer"

    /// Milliseconds as nanoseconds of log time.
    static func ms(_ value: UInt64) -> UInt64 { value * 1_000_000 }

    /// Runs one derived stream `s` over `inputs` (topic, value, milliseconds) and returns its values at milliseconds.
    func run(_ derived: String, _ inputs: [(String, Double, UInt64)]) throws -> [Output] {
        let pipeline = try Pipeline(
            yaml: """
                name: t
                devices:
                  - family: comodule
                    source: {simulated: {seed: 1}}
                derived:
                \(derived)
                """, file: "t.yaml")
        let engine = try PipelineEngine(pipeline: pipeline, recorder: nil)
        var outputs: [Output] = []
        engine.onDerivedValue = { value in
            if value.name == "s" { outputs.append(Output(value.value, value.logTime / 1_000_000)) }
        }
        for (topic, value, time) in inputs {
            try engine.ingest(topic: topic, value: value, at: Self.ms(time))
        }
        try engine.finish()
        return outputs
    }

    struct Output: Equatable, CustomStringConvertible {
        var value: Double
        var milliseconds: UInt64
        init(_ value: Double, _ milliseconds: UInt64) {
            self.value = value
            self.milliseconds = milliseconds
        }
        var description: String { "\(value)@\(milliseconds)" }
    }

    func speeds(_ values: [(Double, UInt64)]) -> [(String, Double, UInt64)] {
        values.map { (Self.speed, $0.0, $0.1) }
    }

    @Test func mapScalesAndOffsetsAtTheInputInstant() throws {
        let outputs = try run(
            """
              - name: s
                from: /comodule/*/speed
                operators: [map: {scale: 2, offset: 1}]
            """, speeds([(1, 0), (2.5, 10)]))
        #expect(outputs == [Output(3, 0), Output(6, 10)])
    }

    @Test func mapConvertsUnits() throws {
        let outputs = try run(
            """
              - name: s
                from: /comodule/*/speed
                operators: [map: {from: kilometer_per_hour, to: meter_per_second}]
            """, speeds([(36, 0)]))
        #expect(outputs.count == 1)
        #expect(abs(outputs[0].value - 10) < 1e-12)
    }

    @Test func filterKeepsValuesInRange() throws {
        let outputs = try run(
            """
              - name: s
                from: /comodule/*/speed
                operators: [filter: {min: 2, max: 4}]
            """, speeds([(1, 0), (2, 1), (4, 2), (5, 3)]))
        #expect(outputs == [Output(2, 1), Output(4, 2)])
    }

    @Test func debounceEmitsAfterQuietIntervalAndPendingAtTheEnd() throws {
        let outputs = try run(
            """
              - name: s
                from: /comodule/*/speed
                operators: [debounce: 250ms]
            """, speeds([(1, 0), (2, 100), (3, 600), (4, 700)]))
        // 2 waits until 350; 3 is replaced by 4, which is pending at the end (700) and emitted then.
        #expect(outputs == [Output(2, 350), Output(4, 700)])
    }

    @Test func debounceInputAtTheDeadlineReplacesThePendingValue() throws {
        let outputs = try run(
            """
              - name: s
                from: /comodule/*/speed
                operators: [debounce: 250ms]
            """, speeds([(1, 0), (2, 250)]))
        #expect(outputs == [Output(2, 250)])
    }

    @Test func throttleLatest() throws {
        let outputs = try run(
            """
              - name: s
                from: /comodule/*/speed
                operators: [throttle: 1s]
            """, speeds([(1, 0), (2, 200), (3, 500), (4, 1500)]))
        #expect(outputs == [Output(1, 0), Output(3, 1000), Output(4, 1500)])
    }

    @Test func throttleFirst() throws {
        let outputs = try run(
            """
              - name: s
                from: /comodule/*/speed
                operators: [throttle: {interval: 1s, latest: false}]
            """, speeds([(1, 0), (2, 200), (3, 500), (4, 1500)]))
        #expect(outputs == [Output(1, 0), Output(2, 1000), Output(4, 1500)])
    }

    @Test func sampleOnAGridFromTheFirstValue() throws {
        let outputs = try run(
            """
              - name: s
                from: /comodule/*/speed
                operators: [sample: 1s]
            """, speeds([(1, 0), (2, 300), (3, 1200), (4, 3500)]))
        #expect(outputs == [Output(2, 1000), Output(3, 2000), Output(4, 3500)])
    }

    @Test func chunkedByTimeReducesEachChunk() throws {
        let outputs = try run(
            """
              - name: s
                from: /comodule/*/speed
                operators: [chunked: {every: 1s, reduce: mean}]
            """, speeds([(1, 0), (3, 500), (5, 1000), (7, 1600)]))
        // A value at the closing instant belongs to the chunk; the open chunk is emitted at the end.
        #expect(outputs == [Output(3, 1000), Output(7, 1600)])
    }

    @Test func chunkedByCount() throws {
        let outputs = try run(
            """
              - name: s
                from: /comodule/*/speed
                operators: [chunked: {count: 2, reduce: sum}]
            """, speeds([(1, 0), (2, 10), (3, 20)]))
        #expect(outputs == [Output(3, 10), Output(3, 20)])
    }

    @Test func chunkedByCountOrTime() throws {
        let outputs = try run(
            """
              - name: s
                from: /comodule/*/speed
                operators: [chunked: {count: 3, every: 100ms, reduce: count}]
            """, speeds([(1, 0), (1, 10), (1, 20), (1, 30), (1, 200)]))
        #expect(outputs == [Output(3, 20), Output(1, 130), Output(1, 200)])
    }

    @Test func removeDuplicates() throws {
        let outputs = try run(
            """
              - name: s
                from: /comodule/*/speed
                operators: [removeDuplicates]
            """, speeds([(1, 0), (1, 1), (2, 2), (2, 3), (1, 4)]))
        #expect(outputs == [Output(1, 0), Output(2, 2), Output(1, 4)])
    }

    @Test func prefix() throws {
        let outputs = try run(
            """
              - name: s
                from: /comodule/*/speed
                operators: [prefix: 2]
            """, speeds([(1, 0), (2, 1), (3, 2)]))
        #expect(outputs == [Output(1, 0), Output(2, 1)])
    }

    @Test func mergeInArrivalOrder() throws {
        let outputs = try run(
            """
              - name: s
                merge: [/comodule/*/speed, /comodule/*/odometer]
            """, [(Self.speed, 1, 0), (Self.odometer, 100, 5), (Self.speed, 2, 5), (Self.odometer, 101, 9)])
        #expect(outputs == [Output(1, 0), Output(100, 5), Output(2, 5), Output(101, 9)])
    }

    @Test func combineLatestOnceEveryInputHasAValue() throws {
        let outputs = try run(
            """
              - name: s
                combineLatest: {v: /comodule/*/speed, d: /comodule/*/odometer}
                value: d * 10 + v
            """, [(Self.speed, 1, 0), (Self.speed, 2, 3), (Self.odometer, 5, 10), (Self.speed, 3, 20)])
        #expect(outputs == [Output(52, 10), Output(53, 20)])
    }

    @Test func derivedFromDerivedRunsInDependencyOrder() throws {
        let outputs = try run(
            """
              - name: s
                from: /derived/fast
                operators: [map: {scale: 10}]
              - name: fast
                from: /comodule/*/speed
                operators: [filter: {min: 2}, debounce: 100ms]
            """, speeds([(1, 0), (3, 10), (4, 50), (1, 500)]))
        #expect(outputs == [Output(40, 150)])
    }

    @Test func timersFireAsLogTimeAdvancesOnOtherTopics() throws {
        let outputs = try run(
            """
              - name: s
                from: /comodule/*/speed
                operators: [debounce: 100ms]
            """, [(Self.speed, 1, 0), (Self.odometer, 9, 500), (Self.odometer, 9, 900)])
        #expect(outputs == [Output(1, 100)])
    }

    @Test func expressionFunctions() throws {
        let expression = try ValueExpression(
            parsing: "hypot(x, y) + max(x, y, 1) - -abs(y) + 2^3 / 4 + atan2(0, 1)",
            variables: ["x", "y"])
        #expect(expression.evaluate([3, -4]) == 5 + 3 + 4 + 2)
        #expect(
            try ValueExpression(parsing: "sqrt(x^2 + y^2 + z^2)", variables: ["x", "y", "z"]).evaluate([3, 4, 12]) == 13
        )
    }
}
