import Pipeline
import Testing

/// Deep pipelines run without recursion: a value crosses tens of thousands of
/// operators or chained derived streams on a work list, not on the stack.
@Suite struct PipelineDepthTests {
    static let speed = "/comodule/SCOOT-0001/speed"

    func engine(_ derived: String) throws -> PipelineEngine {
        let pipeline = try Pipeline(
            yaml: """
                name: t
                devices:
                  - family: comodule
                    source: {simulated: {seed: 1}}
                derived:
                \(derived)
                """, file: "t.yaml")
        return try PipelineEngine(pipeline: pipeline, recorder: nil)
    }

    @Test func aValueCrossesFiftyThousandOperators() throws {
        // Each `map` adds 1; the value comes out with 50,000 added, once per distinct input.
        let operators = Array(repeating: "map: {scale: 1, offset: 1}", count: 50_000).joined(separator: ", ")
        let engine = try engine(
            """
              - name: s
                from: /comodule/*/speed
                operators: [removeDuplicates, \(operators), prefix: 2]
            """)
        var outputs: [Double] = []
        engine.onDerivedValue = { outputs.append($0.value) }
        for (index, value) in [1.0, 1, 2, 3].enumerated() {
            try engine.ingest(topic: Self.speed, value: value, at: UInt64(index) * 1_000_000)
        }
        try engine.finish()
        #expect(outputs == [50_001, 50_002])
    }

    @Test func aValueCrossesAChainOfThirtyThousandStreamsDeclaredBackwards() throws {
        // s0 reads the device; s(i) reads s(i-1) and adds 1. Declared last to first, so both the
        // topological order and the cycle check walk the whole chain.
        let count = 30_000
        let streams = (0..<count).reversed().map { index in
            let source = index == 0 ? "/comodule/*/speed" : "/derived/s\(index - 1)"
            return "  - {name: s\(index), from: \"\(source)\", operators: [map: {scale: 1, offset: 1}]}"
        }
        let engine = try engine(streams.joined(separator: "\n"))
        var outputs: [String: Double] = [:]
        var order: [String] = []
        engine.onDerivedValue = { value in
            outputs[value.name] = value.value
            order.append(value.name)
        }
        try engine.ingest(topic: Self.speed, value: 5, at: 0)
        #expect(outputs.count == count)
        #expect(outputs["s\(count - 1)"] == Double(5 + count))
        #expect(order.first == "s0" && order.last == "s\(count - 1)")
    }

    @Test func aCycleThroughALongChainIsStillFound() throws {
        // s0 reads s(n-1): one cycle through 20,000 streams.
        let count = 20_000
        let streams = (0..<count).map { index in
            "  - {name: s\(index), from: \"/derived/s\((index + count - 1) % count)\"}"
        }
        #expect {
            try engine(streams.joined(separator: "\n"))
        } throws: { error in
            (error as? PipelineError)?.description.contains("derived streams form a cycle: ") == true
        }
    }
}
