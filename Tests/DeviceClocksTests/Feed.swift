import DeviceClocks
import Devices

/// What feeding a delivery model's notifications through an estimator gave:
/// per sample its truth, receive time and estimate.
struct Fed {
    var truth: [Int64] = []
    var receive: [Int64] = []
    var estimate: [Int64] = []
    var ticks: [UInt64] = []
    var models: [ClockModel] = []

    /// Estimate minus truth, nanoseconds.
    var errors: [Int64] { zip(estimate, truth).map { $0 - $1 } }

    /// The `fraction` quantile (nearest rank) of `values`.
    static func quantile(_ values: [Int64], _ fraction: Double) -> Int64 {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }

    /// The spread of the errors after removing their median (the constant delay): the p99 of |error − median|.
    func p99AroundMedian(from start: Int = 0) -> Int64 {
        let errors = Array(errors[start...])
        let median = Self.quantile(errors, 0.5)
        return Self.quantile(errors.map { abs($0 - median) }, 0.99)
    }

    static func ticked(
        _ notifications: [DeliveredNotification], configuration: DeviceClockEstimator.Configuration
    ) throws -> Fed {
        var clock = try DeviceClockEstimator(configuration: configuration)
        var fed = Fed()
        for notification in notifications {
            let times = try clock.sampleTimes(
                ticks: notification.samples.map(\.ticks), receivedAt: notification.receivedAt)
            fed.append(notification, times)
            fed.models.append(clock.model)
        }
        return fed
    }

    static func dejittered(_ notifications: [DeliveredNotification], rate: Double) throws -> Fed {
        var dejitterer = try RateDejitterer(configuration: .init(nominalRate: rate))
        var fed = Fed()
        for notification in notifications {
            let times = try dejitterer.sampleTimes(
                count: notification.samples.count, receivedAt: notification.receivedAt)
            fed.append(notification, times)
            fed.models.append(dejitterer.model)
        }
        return fed
    }

    private mutating func append(_ notification: DeliveredNotification, _ times: [Int64]) {
        truth += notification.samples.map(\.measuredAt)
        receive += notification.samples.map(\.receivedAt)
        ticks += notification.samples.map(\.ticks)
        estimate += times
    }
}
