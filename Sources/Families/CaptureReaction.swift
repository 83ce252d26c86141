public import Devices

/// Family logic that answers what a device says while it is captured — for
/// example a Jacquard tag's `Attached` notification, answered by switching
/// the gear to gesture mode. One is made per connection; it lives on the
/// link's task.
public protocol CaptureReaction: AnyObject {
    /// The writes to send after `notification` was delivered (usually none).
    func writes(after notification: RawNotification) -> [CaptureProfile.Write]
}
