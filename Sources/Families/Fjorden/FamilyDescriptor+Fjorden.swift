import Devices
import Recording

extension FamilyDescriptor {
    /// Fjorden camera grips (recorder profile v1).
    ///
    /// - Streams: `grip`, `battery`, `device_information`.
    /// - Advertisement and capture: the Fjorden service; the event and
    ///   battery characteristics, battery and device information read once.
    public static let fjorden = FamilyDescriptor(
        family: .fjorden,
        summary: "Fjorden camera grips: button and dial events",
        decoder: { _ in FjordenDecoder() },
        streamNames: ["grip", "battery", "device_information"],
        schemas: [FjordenValue.gripSchema, FjordenValue.batterySchema, FjordenValue.deviceInformationSchema],
        advertisement: AdvertisementMatch(services: [FjordenGATT.service]),
        capture: CaptureProfile(
            family: .fjorden, notified: [FjordenGATT.event, FjordenGATT.batteryLevel],
            // The device information strings the decoder knows (not 2A23,
            // the System ID, which it does not decode: reading it would be a
            // malformed-packet loss on every connection).
            read: [FjordenGATT.batteryLevel] + FjordenDeviceInformation.Field.allCases.map(\.characteristic)),
        simulator: { request in
            var configuration = request.faults ? FjordenSimulator.Configuration.default : .clean
            configuration.delivery = request.delivery
            return FjordenSimulator(seed: request.seed, configuration: configuration)
        })
}
