/// The one unit vocabulary of a recording: UCUM case-sensitive codes
/// (`Cel`, `km/h`, `m/s2`, `%`, `[g]`, `deg/s`, `/min`, `ms`), and the
/// spellings earlier versions wrote, each mapped to its code.
///
/// New recordings write codes only (the index, the channel metadata);
/// reading maps a former spelling to its code, so `info`, `query`, exports,
/// the report and the live view show one vocabulary for old and new files.
///
/// ```swift
/// UnitCode.canonical("celsius")             // "Cel"
/// UnitCode.canonical("kilometer_per_hour")  // "km/h"
/// UnitCode.canonical("g")                   // "[g]" (standard gravity; UCUM "g" is the gram)
/// UnitCode.canonical("lx")                  // "lx" (unknown: unchanged)
/// ```
public enum UnitCode {
    /// Each former spelling (tlm's device tables, the Comodule SDK's
    /// identifiers, pipeline files) and the UCUM code that replaces it.
    public static let formerSpellings: [String: String] = [
        // DIoT feature units before UCUM.
        "degC": "Cel",
        "g": "[g]",
        "%RH": "%",
        "bpm": "/min",
        "steps": "{steps}",
        // Comodule SDK identifiers (and pipeline `map` units).
        "celsius": "Cel",
        "kilometer_per_hour": "km/h",
        "kilometer": "km",
        "percent": "%",
        // Pipeline `map: {from:, to:}` names.
        "meter_per_second": "m/s",
        "mile_per_hour": "[mi_i]/h",
        "meter_per_second_squared": "m/s2",
        "meter": "m",
        "mile": "[mi_i]",
        "kelvin": "K",
        "fahrenheit": "[degF]",
        "radian": "rad",
        "degree": "deg",
        "radian_per_second": "rad/s",
        "degree_per_second": "deg/s",
        "fraction": "1",
        "second": "s",
        "millisecond": "ms",
    ]

    /// The UCUM code for a unit as a recording or a file spells it: a former
    /// spelling's code, else `spelling` unchanged (a code already, or a unit
    /// this table does not know).
    public static func canonical(_ spelling: String) -> String {
        formerSpellings[spelling] ?? spelling
    }

    /// ``canonical(_:)`` of an optional unit; `nil` stays `nil`.
    public static func canonical(_ spelling: String?) -> String? {
        spelling.map { canonical($0) }
    }
}
