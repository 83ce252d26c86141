import Devices
import Recording

extension FamilyDescriptor {
    /// Daatrics DIoT sensors.
    ///
    /// - Streams: one per feature (`acc_x`, `heart_rate`, …; unknown codes
    ///   as `unknown_<code>`), `channel_empty`, the command replies
    ///   (`features`, `channel_map`, `channel_rates`), `battery`,
    ///   `device_information`, `chip_id`, `debug_log`.
    /// - Advertisement: manufacturer data of company 0x04F7 holding the
    ///   16-byte device UUID (the device's identifier in topics); the data
    ///   service as a fallback.
    /// - Capture: the nine data channels, the three command characteristics
    ///   (their replies are notified), battery, device information, chip id
    ///   and the debug log; on start it asks for the feature settings, the
    ///   channel bindings and the rates (queries only: the device's own
    ///   configuration is recorded, not changed).
    /// - Simulator: `DiotSimulator`; with a rate, an IMU (acceleration and
    ///   angular rate only) at that many notifications per second.
    public static let diot = FamilyDescriptor(
        family: .diot,
        summary: "Daatrics DIoT sensors: nine data channels of 5-byte feature records",
        decoder: { _ in DiotDecoder() },
        streamNames: (0...255).map { DiotFeature(rawValue: UInt8($0)).topicName }
            + [
                "channel_empty", "features", "channel_map", "channel_rates", "battery", "device_information",
                "chip_id", "debug_log",
            ],
        schemas: [
            DiotEvent.sampleSchema, DiotEvent.channelEmptySchema, DiotEvent.featureSettingSchema,
            DiotEvent.channelBindingSchema, DiotEvent.channelRateSchema, DiotEvent.batterySchema,
            DiotEvent.chipIDSchema, DiotEvent.debugLogSchema,
        ],
        advertisement: AdvertisementMatch(
            fallbackServices: [DiotGATT.dataService],
            identify: { manufacturerData in
                let company = DiotAdvertisement.companyID
                guard let data = manufacturerData[company] else { return nil }
                let bytes = [UInt8(truncatingIfNeeded: company), UInt8(truncatingIfNeeded: company >> 8)] + data
                return DiotAdvertisement.parse(manufacturerData: bytes)?.deviceIdentifier
            }),
        capture: CaptureProfile(
            family: .diot,
            notified: DiotGATT.dataCharacteristics
                + [
                    DiotGATT.featuresCommand, DiotGATT.channelsCommand, DiotGATT.ratesCommand,
                    DiotGATT.batteryLevel, DiotGATT.debugLog,
                ],
            read: [
                DiotGATT.batteryLevel, DiotGATT.chipID, DiotGATT.manufacturerName, DiotGATT.modelNumber,
                DiotGATT.hardwareRevision, DiotGATT.firmwareRevision, DiotGATT.softwareRevision,
            ],
            startupWrites: [DiotCommand.fetchFeatures, .fetchChannels, .fetchRates].map {
                CaptureProfile.Write(characteristic: $0.characteristic, bytes: $0.bytes)
            }),
        simulator: { request in
            var configuration: DiotSimulator.Configuration =
                if let rate = request.rate {
                    request.faults ? .stressed(.imu(rate: rate)) : .imu(rate: rate)
                } else {
                    request.faults ? .stress : .default
                }
            configuration.delivery = request.delivery
            return DiotSimulator(seed: request.seed, configuration: configuration)
        },
        simulatorTakesRate: true)
}
