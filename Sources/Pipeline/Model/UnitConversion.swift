import Quantities

/// The units `map: {from: …, to: …}` converts between: each unit is a scale
/// (and, for temperatures, an offset) to its dimension's base unit. Units are
/// UCUM codes (`km/h`, `m/s`, `Cel`, `[g]`); a former name (`kilometer_per_hour`)
/// is read as its code (`Quantities.UnitCode`).
///
/// ```swift
/// let (scale, offset) = try UnitConversion.scaleAndOffset(from: "km/h", to: "m/s")
/// // scale 0.2777…, offset 0
/// ```
public enum UnitConversion {
    /// A unit: its dimension, and `base = value * scale + offset`.
    struct Unit {
        let dimension: String
        let scale: Double
        let offset: Double
    }

    static let units: [String: Unit] = [
        "m/s": Unit(dimension: "speed", scale: 1, offset: 0),
        "km/h": Unit(dimension: "speed", scale: 1 / 3.6, offset: 0),
        "[mi_i]/h": Unit(dimension: "speed", scale: 0.44704, offset: 0),
        "m/s2": Unit(dimension: "acceleration", scale: 1, offset: 0),
        "[g]": Unit(dimension: "acceleration", scale: 9.80665, offset: 0),
        "m": Unit(dimension: "length", scale: 1, offset: 0),
        "km": Unit(dimension: "length", scale: 1000, offset: 0),
        "[mi_i]": Unit(dimension: "length", scale: 1609.344, offset: 0),
        "Cel": Unit(dimension: "temperature", scale: 1, offset: 0),
        "K": Unit(dimension: "temperature", scale: 1, offset: -273.15),
        "[degF]": Unit(dimension: "temperature", scale: 5.0 / 9.0, offset: -32 * 5.0 / 9.0),
        "rad": Unit(dimension: "angle", scale: 1, offset: 0),
        "deg": Unit(dimension: "angle", scale: Double.pi / 180, offset: 0),
        "rad/s": Unit(dimension: "angular speed", scale: 1, offset: 0),
        "deg/s": Unit(dimension: "angular speed", scale: Double.pi / 180, offset: 0),
        "1": Unit(dimension: "ratio", scale: 1, offset: 0),
        "%": Unit(dimension: "ratio", scale: 0.01, offset: 0),
        "s": Unit(dimension: "time", scale: 1, offset: 0),
        "ms": Unit(dimension: "time", scale: 0.001, offset: 0),
    ]

    /// The unit codes, sorted.
    public static var unitNames: [String] { units.keys.sorted() }

    /// The scale and offset that convert a value in `from` to `to`: `to = from * scale + offset`.
    ///
    /// - Parameters:
    ///   - from: The source unit, for example `km/h` (or its former name `kilometer_per_hour`).
    ///   - to: The target unit of the same dimension, for example `m/s`.
    /// - Returns: The scale and offset.
    /// - Throws: A message naming the unknown unit or the mismatched dimensions.
    public static func scaleAndOffset(
        from: String, to: String
    ) throws(UnitConversionError) -> (scale: Double, offset: Double) {
        guard let source = units[UnitCode.canonical(from)] else {
            throw UnitConversionError(unit: from, message: unknown(from))
        }
        guard let target = units[UnitCode.canonical(to)] else {
            throw UnitConversionError(unit: to, message: unknown(to))
        }
        guard source.dimension == target.dimension else {
            throw UnitConversionError(
                unit: to, message: "cannot convert \(from) (\(source.dimension)) to \(to) (\(target.dimension))")
        }
        // base = v * s1 + o1; to = (base - o2) / s2
        return (source.scale / target.scale, (source.offset - target.offset) / target.scale)
    }

    private static func unknown(_ unit: String) -> String {
        "unknown unit '\(unit)' (expected one of: \(unitNames.joined(separator: ", ")))"
    }
}

/// A unit conversion that cannot be made: which unit, and why.
public struct UnitConversionError: Error, Sendable, Hashable {
    /// The unit at fault.
    public var unit: String
    /// What is wrong and what was expected.
    public var message: String
}
