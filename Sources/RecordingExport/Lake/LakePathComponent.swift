/// Names from recordings (schema names, device identifiers and families,
/// recording names) made into one safe level of a lake's paths.
///
/// A component holds only ASCII letters, digits, `.`, `_` and `-` (anything
/// else, `/`, `=`, `%`, control characters and non-ASCII included, becomes
/// `_`), never starts with `.` or `_` (names engines treat as hidden, and
/// `..`), is never empty, and is at most 120 bytes: a longer name keeps its
/// first 100 characters and a hash of the whole. The escape is not
/// reversible, so rows carry the exact values in columns (`device_id`,
/// `device_family`, `topic`); the partition directory only groups them.
///
/// ```swift
/// LakePathComponent.escaped("../d=1")  // "x.._d_1"
/// ```
package enum LakePathComponent {
    /// The longest component, in bytes.
    package static let maximumLength = 120

    /// `text` as a safe path component.
    package static func escaped(_ text: String) -> String {
        var safe = String(
            text.unicodeScalars.map { scalar -> Character in
                scalar.isASCII
                    && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                        || "._-".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            })
        if safe.isEmpty { safe = "x" }
        if safe.hasPrefix(".") || safe.hasPrefix("_") { safe = "x" + safe }
        if safe.utf8.count > maximumLength {
            safe = String(safe.prefix(100)) + "-" + LakeDigest.hex(LakeDigest.hash(Array(text.utf8)))
        }
        return safe
    }
}
