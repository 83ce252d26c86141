import Devices
import Recording

extension FamilyDescriptor {
    /// Google Jacquard tags (protocol v2).
    ///
    /// - Streams: `gesture`, `touch`, `imu`, `battery`, `attached`,
    ///   `disconnect`, `error`, `response`, `notification`, ….
    /// - Advertisement: the v2 protocol service among the advertised services.
    /// - Capture: the response, notify and raw-data characteristics; on start
    ///   the handshake of the Jacquard SDKs (`JacquardHandshake`), and
    ///   gesture mode whenever gear attaches (`JacquardGestureMode`).
    public static let jacquard = FamilyDescriptor(
        family: .jacquard,
        summary: "Google Jacquard tags: gestures, touch frames and IMU samples",
        decoder: { _ in JacquardDecoder() },
        streamNames: JacquardValue.schemas.keys.sorted(),
        schemas: JacquardValue.schemas.keys.sorted().compactMap { JacquardValue.schemas[$0] },
        advertisement: AdvertisementMatch(services: [JacquardGATT.service]),
        capture: CaptureProfile(
            family: .jacquard,
            notified: [JacquardGATT.response, JacquardGATT.notify, JacquardGATT.rawData],
            startupWrites: JacquardHandshake.writes.map {
                CaptureProfile.Write(characteristic: JacquardGATT.command, bytes: $0, type: "request")
            },
            makeReaction: { JacquardGestureMode() },
            reactionCharacteristics: [JacquardGATT.notify]),
        simulator: { request in
            var configuration = request.faults ? JacquardSimulator.Configuration.stress : .default
            configuration.delivery = request.delivery
            return JacquardSimulator(seed: request.seed, configuration: configuration)
        })
}
