import Pipeline
import Recording
import Testing

/// `triggers:` in a pipeline file: how they load, and when the engine fires them.
@Suite struct PipelineTriggerTests {
    static let speed = "/comodule/SCOOT-0001/speed"
    static let head = """
        name: t
        devices:
          - family: comodule
            source: {simulated: {seed: 1}}
        derived:
          - name: fast
            from: /comodule/*/speed

        """

    private func load(_ triggers: String) throws -> Pipeline {
        try Pipeline(yaml: Self.head + "triggers:\n" + triggers, file: "t.yaml")
    }

    @Test func conditionsLoadWithTheirWindows() throws {
        let pipeline = try load(
            """
              - name: fast
                when: fast > 20
                before: 30s
                after: 10s
              - name: slow
                when: '/comodule/*/speed <= 5.5'
              - name: any
                on: [/comodule/*/speed, /derived/fast]
            """)
        #expect(pipeline.triggers.map(\.name) == ["fast", "slow", "any"])
        #expect(
            pipeline.triggers.map(\.summary) == [
                "when /derived/fast > 20.0", "when /comodule/*/speed <= 5.5",
                "on /comodule/*/speed, /derived/fast",
            ])
        #expect(pipeline.triggers[0].before == .seconds(30) && pipeline.triggers[0].after == .seconds(10))
        #expect(pipeline.triggers[1].before == nil)
    }

    @Test func badTriggersAreErrorsAtTheirLine() throws {
        func error(_ triggers: String) -> String {
            do {
                _ = try load(triggers)
                return "loaded"
            } catch {
                return "\(error)"
            }
        }
        #expect(error("  - name: a\n    when: fast >> 3\n").contains("t.yaml:10:11: trigger 'a': 'when' must read"))
        #expect(error("  - name: a\n    when: nothing > 3\n").contains("nothing"))
        #expect(error("  - name: a\n    when: fast.value > 3\n").contains("a derived stream has a single value"))
        #expect(error("  - name: a\n    on: /comodule/*/speed\n    when: fast > 3\n").contains("exactly one of"))
        #expect(
            error("  - name: a\n    on: /comodule/*/speed\n  - name: a\n    on: /derived/fast\n").contains(
                "duplicate trigger name 'a'"))
        #expect(error("  - name: a\n    on: /comodule/*/speed\n    after: soon\n").contains("after"))
    }

    @Test func whenFiresOnTheRisingEdgeAndOnOnEveryValue() throws {
        let pipeline = try load(
            """
              - name: derived
                when: fast > 20
              - name: device
                when: /comodule/*/speed >= 25
              - name: every
                on: /comodule/*/speed
            """)
        let engine = try PipelineEngine(pipeline: pipeline, recorder: nil)
        var fired: [String] = []
        engine.onTrigger = { trigger, time, value in
            fired.append(
                "\(trigger.name)@\(time / 1_000_000)=\(value.map { $0.isNaN ? "nan" : String(Int($0)) } ?? "-")")
        }
        for (index, value) in [10.0, 25, 30, 15, 22, .nan, 26].enumerated() {
            try engine.ingest(topic: Self.speed, value: value, at: UInt64(index + 1) * 1_000_000)
        }
        try engine.finish()
        let derived = fired.filter { $0.hasPrefix("derived") }
        let device = fired.filter { $0.hasPrefix("device") }
        // Rising edges only: 25 (after 10), 22 (after 15), 26 (after NaN, which is never true).
        #expect(derived == ["derived@2=25", "derived@5=22", "derived@7=26"])
        #expect(device == ["device@2=25", "device@7=26"])
        #expect(fired.filter { $0.hasPrefix("every") }.count == 7)
    }
}
