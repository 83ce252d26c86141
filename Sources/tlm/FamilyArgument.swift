import ArgumentParser
import Devices
import Families

/// A device family on the command line, by its name (`diot`, `jacquard`, ...).
struct FamilyArgument: ExpressibleByArgument, Hashable {
    let family: DeviceFamily

    init?(argument: String) {
        guard let descriptor = FamilyRegistry.builtIn.descriptor(named: argument) else { return nil }
        self.family = descriptor.family
    }

    static var allValueStrings: [String] { FamilyRegistry.builtIn.families.map(\.rawValue) }
}
