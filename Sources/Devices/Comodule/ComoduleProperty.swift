/// One entry of a Comodule property table: how to decode a property index.
///
/// The table is configuration, not code (see ``ComodulePropertyTable``).
///
/// ```swift
/// let temperature = ComoduleProperty(
///     index: 7, identifier: "battery_temperature",
///     type: .range(step: 0.1, lowerBound: -40, upperBound: 100),
///     unit: "celsius", rawWidth: 2, isSigned: true
/// )
/// ```
public struct ComoduleProperty: Sendable, Hashable {
    /// The property index on the wire (u16).
    public var index: UInt16
    /// The SDK identifier, for example `"speed"`.
    public var identifier: String
    /// Range, states or raw, with step/bounds or the state list.
    public var type: ComodulePropertyType
    /// The SDK unit identifier, for example `"kilometer_per_hour"`; `""` for none.
    public var unit: String
    /// The width the device sends, in bytes (1…8).
    public var rawWidth: Int
    /// Whether the device sends the raw integer signed.
    public var isSigned: Bool
    /// Whether the app may write the property.
    public var writable: Bool

    /// Creates a property (validated when put in a ``ComodulePropertyTable``).
    ///
    /// - Parameters:
    ///   - index: The wire index.
    ///   - identifier: The SDK identifier.
    ///   - type: Range, states or raw.
    ///   - unit: The unit identifier, `""` for none.
    ///   - rawWidth: The raw width in bytes, 1…8.
    ///   - isSigned: Whether the raw integer is signed.
    ///   - writable: Whether the app may write it.
    public init(
        index: UInt16,
        identifier: String,
        type: ComodulePropertyType,
        unit: String = "",
        rawWidth: Int,
        isSigned: Bool = false,
        writable: Bool = false
    ) {
        self.index = index
        self.identifier = identifier
        self.type = type
        self.unit = unit
        self.rawWidth = rawWidth
        self.isSigned = isSigned
        self.writable = writable
    }

    /// The decoded value of a raw integer, or `nil` when it is outside the
    /// read range or state list (raw properties take the bytes instead).
    ///
    /// ```swift
    /// let speed = ComodulePropertyTable.default.property(identifier: "speed")!
    /// print(speed.value(forRawInteger: 250) == .range(25)) // true: 250 × 0.1 + 0
    /// print(speed.value(forRawInteger: 1_001) == nil)     // true: 100.1 is above 100
    /// ```
    ///
    /// - Parameter raw: The raw integer.
    /// - Returns: `.range(Double(raw) × step + lowerBound)` or `.state(index:identifier:)`.
    public func value(forRawInteger raw: Int64) -> ComodulePropertyValue? {
        switch type {
        case .range(let step, let lowerBound, let upperBound):
            let value = Double(raw) * step + lowerBound
            return Self.inRange(value, step: step, lowerBound: lowerBound, upperBound: upperBound) ? .range(value) : nil
        case .states(let states):
            guard raw >= 0, raw < Int64(states.count) else { return nil }
            return .state(index: Int(raw), identifier: states[Int(raw)])
        case .raw:
            return nil
        }
    }

    /// The read-range check, with a tolerance of a millionth of a step for
    /// the rounding of `raw × step`.
    static func inRange(_ value: Double, step: Double, lowerBound: Double, upperBound: Double) -> Bool {
        let tolerance = step.magnitude * 1e-6
        return value >= lowerBound - tolerance && value <= upperBound + tolerance
    }

    /// The first rule this property breaks, as (field, message), or `nil`.
    func problem() -> (field: String, message: String)? {
        if identifier.isEmpty { return ("identifier", "identifier must not be empty") }
        if !(1...8).contains(rawWidth) { return ("rawWidth", "rawWidth \(rawWidth) must be 1…8 bytes") }
        switch type {
        case .range(let step, let lowerBound, let upperBound):
            if !(step.isFinite && step > 0) { return ("step", "step \(step) must be a finite number above 0") }
            if !lowerBound.isFinite { return ("lowerBound", "lowerBound must be a finite number") }
            if !upperBound.isFinite { return ("upperBound", "upperBound must be a finite number") }
            if lowerBound > upperBound {
                return ("upperBound", "upperBound \(upperBound) is below lowerBound \(lowerBound)")
            }
        case .states(let states):
            if states.isEmpty { return ("states", "a states property needs at least one state") }
            if let position = states.firstIndex(where: \.isEmpty) {
                return ("states[\(position)]", "state identifiers must not be empty")
            }
            for (position, state) in states.enumerated() where states[..<position].contains(state) {
                return ("states[\(position)]", "state \"\(state)\" is listed twice")
            }
            if rawWidth < 8, states.count > 1 << (8 * rawWidth - (isSigned ? 1 : 0)) {
                return ("states", "\(states.count) states do not fit a \(rawWidth)-byte value")
            }
        case .raw:
            break
        }
        return nil
    }
}
