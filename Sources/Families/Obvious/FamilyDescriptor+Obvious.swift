import Devices
import Recording

extension FamilyDescriptor {
    /// Obvious feature management (recorder profile v1).
    ///
    /// - Streams: `feature_status`, `firmware_version`, `upgrade_progress`, `upgrade_status`.
    /// - Advertisement and capture: the Obvious service; its data characteristic.
    public static let obvious = FamilyDescriptor(
        family: .obvious,
        summary: "Obvious feature management: feature status and firmware upgrades",
        decoder: { _ in ObviousDecoder() },
        streamNames: ["feature_status", "firmware_version", "upgrade_progress", "upgrade_status"],
        schemas: [
            ObviousMessage.featureStatusSchema, ObviousMessage.firmwareSchema, ObviousMessage.progressSchema,
            ObviousMessage.statusSchema,
        ],
        advertisement: AdvertisementMatch(services: [ObviousGATT.service]),
        capture: CaptureProfile(family: .obvious, notified: [ObviousGATT.data]),
        simulator: { request in
            var configuration = request.faults ? ObviousSimulator.Configuration.default : .clean
            configuration.delivery = request.delivery
            return ObviousSimulator(seed: request.seed, configuration: configuration)
        })
}
