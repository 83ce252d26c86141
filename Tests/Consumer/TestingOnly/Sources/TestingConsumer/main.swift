import TelemetryTesting

// A marble test of a mapping publisher on the manual clock: `../check.sh`
// expects "true".
let result = await Marble.validate("a-b-c|", expected: "a-b-c|") { input, _ in
    input.map { $0 }
}
print(result.matches)
