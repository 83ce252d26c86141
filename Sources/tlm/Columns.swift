/// Text in columns padded with spaces: the one padding helper of `tlm`'s
/// tables (`info`, `query`, `scan`, `import`, the live status).
enum Columns {
    /// `text` padded with spaces to `width` characters: after it, or with
    /// `alignRight` before it; a text as long or longer is kept whole.
    static func pad(_ text: String, _ width: Int, alignRight: Bool = false) -> String {
        guard text.count < width else { return text }
        let spaces = String(repeating: " ", count: width - text.count)
        return alignRight ? spaces + text : text + spaces
    }

    /// Each column's width: its longest value in `rows`.
    static func widths(_ rows: [[String]]) -> [Int] {
        let count = rows.map(\.count).max() ?? 0
        return (0..<count).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
    }

    /// One line of `values` padded to `widths` (a value past the last width
    /// is not padded) and separated by two spaces.
    ///
    /// - Parameter rightAligned: The columns padded before their values.
    static func line(_ values: [String], _ widths: [Int], rightAligned: Set<Int> = []) -> String {
        values.enumerated().map { index, value in
            pad(value, index < widths.count ? widths[index] : 0, alignRight: rightAligned.contains(index))
        }.joined(separator: "  ")
    }
}
