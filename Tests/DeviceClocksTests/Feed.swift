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

    /// Feeds every notification to two clocks alike: `allocating` through
    /// `times` (a new array each), `reusing` through `into` (one buffer,
    /// longer than a delivery at first, then reused). Whether every
    /// delivery got the same times and `reusing`'s stored epoch matched its
    /// model's, the epochs seen, and the buffer as left.
    static func comparingBuffers<Clock>(
        _ notifications: [DeliveredNotification], allocating: inout Clock, reusing: inout Clock,
        times: (inout Clock, DeliveredNotification) throws -> [Int64],
        into: (inout Clock, DeliveredNotification, inout [Int64]) throws -> Void,
        epochs epoch: (Clock) -> (stored: Int, model: Int)
    ) throws -> (same: Bool, epochs: Set<Int>, buffer: [Int64]) {
        var buffer: [Int64] = [7, 7, 7, 7, 7, 7]
        var same = true
        var epochs: Set<Int> = []
        for notification in notifications {
            let expected = try times(&allocating, notification)
            try into(&reusing, notification, &buffer)
            let (stored, model) = epoch(reusing)
            same = same && buffer == expected && stored == model
            epochs.insert(stored)
        }
        return (same, epochs, buffer)
    }

    private mutating func append(_ notification: DeliveredNotification, _ times: [Int64]) {
        truth += notification.samples.map(\.measuredAt)
        receive += notification.samples.map(\.receivedAt)
        ticks += notification.samples.map(\.ticks)
        estimate += times
    }
}
