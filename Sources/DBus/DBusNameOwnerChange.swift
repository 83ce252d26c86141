/// A bus name changed hands: the bus's `NameOwnerChanged` signal.
///
/// A service that restarts shows up as two changes (old owner → `nil`, then
/// `nil` → a new unique name), or one if the new process replaced the old.
///
/// ```swift
/// for try await change in try await bus.nameOwnerChanges(of: "org.bluez") {
///     if change.newOwner == nil { print("bluetoothd left the bus") }
///     else { print("bluetoothd is now \(change.newOwner!)") }
/// }
/// ```
public struct DBusNameOwnerChange: Sendable, Hashable {
    /// The name, such as `org.bluez`.
    public var name: String
    /// The unique name that owned it before, or `nil` if it had no owner.
    public var oldOwner: String?
    /// The unique name that owns it now, or `nil` if it has no owner any more.
    public var newOwner: String?

    /// Creates a change.
    ///
    /// - Parameters:
    ///   - name: The name.
    ///   - oldOwner: The previous owner's unique name, or `nil`.
    ///   - newOwner: The new owner's unique name, or `nil`.
    ///
    /// ```swift
    /// let gone = DBusNameOwnerChange(name: "org.bluez", oldOwner: ":1.7", newOwner: nil)
    /// ```
    public init(name: String, oldOwner: String?, newOwner: String?) {
        self.name = name
        self.oldOwner = oldOwner
        self.newOwner = newOwner
    }

    /// Reads a `NameOwnerChanged(s name, s old, s new)` signal.
    init?(_ signal: DBusSignal) {
        guard signal.arguments.count == 3,
            let name = signal.arguments[0].string,
            let old = signal.arguments[1].string,
            let new = signal.arguments[2].string
        else { return nil }
        self.init(name: name, oldOwner: old.isEmpty ? nil : old, newOwner: new.isEmpty ? nil : new)
    }
}
