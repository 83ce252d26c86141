import ArgumentParser
import Foundation

/// Refuses an option or flag that takes one value given more than once
/// (`tlm info ride --format json --format table`, `--latched --no-latched`):
/// ArgumentParser keeps the last one, a plausible answer to a question the
/// user did not ask. Options that collect values (`--topic`) may repeat.
///
/// It reads the verb's arguments as ArgumentParser describes them
/// (`_dumpHelp()` of the verb's command alone: each argument's names and
/// whether it repeats), so every verb and every option added later is
/// covered without a list of our own.
struct RepeatedOptionCheck {
    /// What is wrong when `arguments` (the command line without the
    /// program) give a single-value argument of the command they name
    /// under `root` twice, naming the first such argument and the verb's
    /// help; `nil` when none is.
    ///
    /// - Throws: When ArgumentParser's description cannot be read.
    static func repetition(in arguments: [String], of root: any ParsableCommand.Type) throws -> String? {
        var type = root
        var index = 0
        // Subcommands come first (`tlm add metadata ...`).
        while index < arguments.count,
            let sub = type.configuration.subcommands.first(where: {
                $0._commandName == arguments[index] || $0.configuration.aliases.contains(arguments[index])
            })
        {
            type = sub
            index += 1
        }
        let command = try JSONDecoder().decode(Tool.self, from: Data(type._dumpHelp().utf8)).command
        do {
            try check(Array(arguments[index...]), of: command, verb: arguments[..<index].joined(separator: " "))
            return nil
        } catch {
            return error.message
        }
    }

    private struct Repeated: Error {
        var message: String
    }

    private static func check(_ arguments: [String], of command: Command, verb: String) throws(Repeated) {
        var index = 0
        let options = command.arguments ?? []
        let groups = Self.groups(of: options)
        var seen: [Int: String] = [:]
        func note(_ position: Int, as spelled: String) throws(Repeated) {
            guard !options[position].isRepeating else { return }
            let group = groups[position]
            if let first = seen[group] {
                let names = first == spelled ? "\(spelled) is" : "\(first) and \(spelled) are"
                let described = options.indices.filter { groups[$0] == group }.map { options[$0].describedNames }
                throw Repeated(
                    message: "\(names) given twice; \(described.joined(separator: "/")) takes one value: give it "
                        + "once (see 'tlm \(verb.isEmpty ? "" : verb + " ")--help')")
            }
            seen[group] = spelled
        }
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if token == "--" { break }
            guard token.hasPrefix("-"), token.count > 1 else { continue }
            if token.hasPrefix("--") || options.contains(where: { $0.has(.longWithSingleDash, token.dropFirst()) }) {
                let body = token.drop(while: { $0 == "-" })
                let name = body.split(separator: "=", maxSplits: 1).first.map(String.init) ?? String(body)
                let kind: Name.Kind = token.hasPrefix("--") ? .long : .longWithSingleDash
                guard let position = options.firstIndex(where: { $0.has(kind, Substring(name)) }) else { continue }
                try note(position, as: (kind == .long ? "--" : "-") + name)
                // Its value is the next token unless it came with `=`.
                if options[position].kind == .option, !body.contains("=") { index += 1 }
                continue
            }
            // Short names, possibly grouped (`-qv`); an option's value follows it.
            for (offset, character) in token.dropFirst().enumerated() {
                guard let position = options.firstIndex(where: { $0.has(.short, Substring(String(character))) })
                else { break }
                try note(position, as: "-\(character)")
                if options[position].kind == .option {
                    if offset == token.count - 2 { index += 1 }
                    break
                }
            }
        }
    }

    /// The argument each argument is one value of: itself, or for a flag
    /// and its inversion (`--align`/`--no-align`, `--enable-x`/`--disable-x`,
    /// which ArgumentParser describes as two flags) the first of the pair.
    private static func groups(of options: [Argument]) -> [Int] {
        func long(_ argument: Argument) -> String? {
            argument.kind == .flag ? argument.names?.first(where: { $0.kind == .long })?.name : nil
        }
        func base(_ name: String) -> String {
            for prefix in ["no-", "enable-", "disable-"] where name.hasPrefix(prefix) {
                return String(name.dropFirst(prefix.count))
            }
            return name
        }
        return options.indices.map { position in
            guard let name = long(options[position]) else { return position }
            return options.indices.first { other in
                guard let otherName = long(options[other]) else { return false }
                return otherName == name || (base(otherName) == base(name) && otherName != name)
            } ?? position
        }
    }

    private struct Tool: Decodable {
        var command: Command
    }

    private struct Command: Decodable {
        var arguments: [Argument]?
    }

    private struct Argument: Decodable {
        enum Kind: String, Decodable { case positional, option, flag }
        var kind: Kind
        var isRepeating: Bool
        var names: [Name]?

        func has(_ kind: Name.Kind, _ name: Substring) -> Bool {
            (names ?? []).contains { $0.kind == kind && $0.name == name }
        }

        /// `--format`, or `--latched/--no-latched`.
        var describedNames: String {
            (names ?? []).filter { $0.kind != .short }.map { ($0.kind == .long ? "--" : "-") + $0.name }
                .joined(separator: "/")
        }
    }

    private struct Name: Decodable {
        enum Kind: String, Decodable { case long, short, longWithSingleDash }
        var kind: Kind
        var name: String
    }
}
