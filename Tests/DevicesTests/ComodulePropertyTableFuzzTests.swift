import Testing

@testable import Devices

/// Mutated property-table files (the JSON the Comodule decoder loads): the
/// packet fuzzing is the families' conformance harness (`FamiliesTests`).
@Suite struct ComodulePropertyTableFuzzTests {
    @Test func mutatedTableFilesNeverTrapAndFailTyped() {
        var generator = SeededRandom(seed: 0x7AB1E)
        let good = ComodulePropertyTable.default.json()
        var loaded = 0
        for _ in 0..<3_000 {
            var bytes = good
            for _ in 0...Int.random(in: 0...3, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0...2, using: &generator) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: position)
                default:
                    bytes.insert(Array("{}[],:\"0-e.tfn \n\\".utf8).randomElement(using: &generator)!, at: position)
                }
            }
            do {
                let table = try ComodulePropertyTable(json: bytes)
                #expect(table.properties.count <= 8)
                loaded += 1
            } catch {
                #expect(!error.message.isEmpty)
                if error.code == .invalidJSON {
                    #expect(error.line != nil, "\(error) \(String(decoding: bytes, as: UTF8.self).debugDescription)")
                }
            }
        }
        #expect(loaded > 0)
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        #expect(throws: ComodulePropertyTableError.self) { try ComodulePropertyTable(json: deep) }
    }
}
