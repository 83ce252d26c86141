import Devices
import Families
import Recording

extension FamilyDescriptor {
    /// The toy thermometer family: everything the recorder needs to know of it.
    static let thermometer = FamilyDescriptor(
        family: .thermometer,
        summary: "Toy thermometers: one temperature every 100 ms",
        decoder: { _ in ThermometerDecoder() },
        streamNames: ["temperature"],
        schemas: [ThermometerReading.schema],
        advertisement: AdvertisementMatch(services: [ThermometerGATT.service]),
        capture: CaptureProfile(family: .thermometer, notified: [ThermometerGATT.temperature]),
        simulator: { request in ThermometerSimulator(seed: request.seed, faults: request.faults) })
}
