import Devices
import Families
import FamiliesTesting
import Testing

/// The conformance harness (`FamiliesTesting`) over every family of a
/// registry: the built-in ones and the toy thermometer, which gets every
/// test here by its one registering line (`ToyFamilyTests.families`).
/// Fuzzing runs 100 000 packets per family, 240 000 for Jacquard (its
/// fragments and protobuf messages have far more paths), times
/// `TLM_FUZZ_SCALE` (`make test` 1, `make fuzz` 100).
@Suite struct FamilyConformanceFuzzTests {
    static let families = ToyFamilyTests.families

    static func rounds(_ family: DeviceFamily) -> Int {
        (family == .jacquard ? 240_000 : 100_000) * FamilyConformance.fuzzScale
    }

    @Test func everyRegisteredFamilyIsVerifiedTheToyOneToo() {
        #expect(Self.families.families == FamilyRegistry.builtIn.families + [.thermometer])
    }

    @Test(arguments: families.families)
    func randomAndMutatedPacketsNeverTrapAndFailTyped(_ family: DeviceFamily) throws {
        var checks = BuiltInFamilyFuzzChecks(family)
        try FamilyConformance(family, in: Self.families).verifyFuzzing(rounds: Self.rounds(family)) {
            checks.inspect($0, $1)
        }
        checks.finish()
    }

    @Test(arguments: families.families)
    func cleanSimulationIsDeterministicAndDecodesToItsGroundTruth(_ family: DeviceFamily) throws {
        try FamilyConformance(family, in: Self.families).verifyRoundTrip()
    }

    @Test(arguments: families.families)
    func linkFaultsAreRejectedTypedAndSpareTheRest(_ family: DeviceFamily) throws {
        try FamilyConformance(family, in: Self.families).verifyLinkFaults()
    }
}
