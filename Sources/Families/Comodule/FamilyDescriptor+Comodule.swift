import Devices
import Recording

extension FamilyDescriptor {
    /// Comodule vehicle modules (recorder profile v1).
    ///
    /// - Streams: one per property of the property table (`speed`,
    ///   `lights`, …), with `<property>/write_ack` and `<property>/error`.
    /// - Options: `property_table`, the path of a property table (JSON); the
    ///   built-in default table otherwise.
    /// - Advertisement and capture: the Comodule service; the property stream.
    public static let comodule = FamilyDescriptor(
        family: .comodule,
        summary: "Comodule vehicle modules: range, state and raw properties",
        decoder: { options in
            guard let path = options["property_table"] else { return ComoduleDecoder() }
            return ComoduleDecoder(table: try ComodulePropertyTable.load(contentsOfFile: path))
        },
        streamNames: ComodulePropertyTable.default.properties.flatMap {
            [$0.identifier, $0.identifier + "/write_ack", $0.identifier + "/error"]
        },
        schemas: [
            ComoduleFrame.rangeSchema, ComoduleFrame.stateSchema, ComoduleFrame.rawSchema,
            ComoduleFrame.writeAckSchema, ComoduleFrame.errorSchema,
        ],
        advertisement: AdvertisementMatch(services: [ComoduleGATT.service]),
        capture: CaptureProfile(family: .comodule, notified: [ComoduleGATT.propertyStream]),
        simulator: { request in
            var configuration = request.faults ? ComoduleSimulator.Configuration.default : .clean
            configuration.delivery = request.delivery
            return ComoduleSimulator(seed: request.seed, configuration: configuration)
        })
}
