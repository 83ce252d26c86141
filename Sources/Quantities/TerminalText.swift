/// Text from a device, a capture or a recording made safe to print on a
/// terminal: control characters (C0, DEL, C1) and the bidirectional
/// formatting characters are shown escaped, as `\e`, `\n`, `\t`, `\r`,
/// `\u{…}`, so an advertised name like `ESC]0;…BEL` cannot retitle or
/// clear the terminal, and `RLO` cannot reorder what follows. A backslash
/// is doubled, so the escaped text reads back unambiguously. Text without
/// such characters is returned as it is.
///
/// ```swift
/// print(TerminalText.escaped("tag\u{1B}[2K"))  // tag\e[2K
/// ```
public enum TerminalText {
    /// `text` with every control and bidirectional formatting character escaped.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\\" || needsEscape($0) }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\u{1B}": out += "\\e"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where needsEscape(scalar): out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether a scalar is escaped: C0 controls, DEL, C1 controls, and the
    /// bidirectional embeddings, overrides and isolates (U+202A–U+202E,
    /// U+2066–U+2069) with the marks U+200E, U+200F and U+061C.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }
}
