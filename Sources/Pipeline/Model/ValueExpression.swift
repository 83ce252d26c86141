import Foundation

/// An arithmetic expression over named inputs, the `value:` of a
/// `combineLatest` derived stream: numbers, the inputs' names, `+ - * /`,
/// `^` (power), parentheses, and the functions `sqrt`, `abs`, `min`, `max`,
/// `hypot` (any number of arguments) and `atan2`.
///
/// ```swift
/// let magnitude = try ValueExpression(parsing: "sqrt(x^2 + y^2 + z^2)", variables: ["x", "y", "z"])
/// magnitude.evaluate([3, 4, 12])  // 13
/// ```
public struct ValueExpression: Sendable, Hashable, CustomStringConvertible {
    indirect enum Node: Sendable, Hashable {
        case number(Double)
        case variable(Int)
        case negate(Node)
        case binary(Character, Node, Node)
        case call(String, [Node])
    }

    /// The expression as written.
    public let text: String
    /// The variable names, in the order ``evaluate(_:)`` takes their values.
    public let variables: [String]
    let root: Node

    /// The functions and their argument counts (`nil`: one or more).
    static let functions: [String: Int?] = ["sqrt": 1, "abs": 1, "min": nil, "max": nil, "hypot": nil, "atan2": 2]

    /// Parses an expression.
    ///
    /// - Parameters:
    ///   - text: The expression.
    ///   - variables: The names it may use.
    /// - Throws: ``ExpressionError`` with the offset (in characters) of the problem.
    public init(parsing text: String, variables: [String]) throws(ExpressionError) {
        var parser = ExpressionParser(text: text, variables: variables)
        self.root = try parser.parse()
        self.text = text
        self.variables = variables
    }

    /// The value for the variables' values, in ``variables`` order.
    ///
    /// - Parameter values: One value per variable.
    /// - Returns: The result (IEEE arithmetic: division by zero gives an infinity or NaN).
    public func evaluate(_ values: [Double]) -> Double {
        Self.evaluate(root, values)
    }

    private static func evaluate(_ node: Node, _ values: [Double]) -> Double {
        switch node {
        case .number(let number): return number
        case .variable(let index): return values[index]
        case .negate(let operand): return -evaluate(operand, values)
        case .binary(let op, let left, let right):
            let l = evaluate(left, values), r = evaluate(right, values)
            switch op {
            case "+": return l + r
            case "-": return l - r
            case "*": return l * r
            case "/": return l / r
            default: return pow(l, r)
            }
        case .call(let name, let arguments):
            let args = arguments.map { evaluate($0, values) }
            switch name {
            case "sqrt": return args[0].squareRoot()
            case "abs": return abs(args[0])
            case "min": return args.min()!
            case "max": return args.max()!
            case "atan2": return atan2(args[0], args[1])
            default: return args.map { $0 * $0 }.reduce(0, +).squareRoot()
            }
        }
    }

    public var description: String { text }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.text == rhs.text && lhs.variables == rhs.variables }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

/// A problem in a ``ValueExpression``: what, and at which character offset (from 0).
public struct ExpressionError: Error, Sendable, Hashable {
    /// The offset of the problem in the expression, in characters from 0.
    public var offset: Int
    /// What is wrong and what was expected.
    public var message: String
}

/// A recursive-descent parser for ``ValueExpression``.
private struct ExpressionParser {
    let characters: [Character]
    let variables: [String]
    var position = 0

    init(text: String, variables: [String]) {
        self.characters = Array(text)
        self.variables = variables
    }

    mutating func parse() throws(ExpressionError) -> ValueExpression.Node {
        skipSpaces()
        guard position < characters.count else { throw fail("empty expression (expected a formula such as sqrt(x^2 + y^2))") }
        let node = try sum()
        skipSpaces()
        if position < characters.count {
            throw fail("unexpected '\(characters[position])' (expected an operator + - * / ^ or the end)")
        }
        return node
    }

    func fail(_ message: String, at offset: Int? = nil) -> ExpressionError {
        ExpressionError(offset: offset ?? position, message: message)
    }

    mutating func skipSpaces() {
        while position < characters.count, characters[position] == " " { position += 1 }
    }

    mutating func take(_ character: Character) -> Bool {
        skipSpaces()
        guard position < characters.count, characters[position] == character else { return false }
        position += 1
        return true
    }

    mutating func sum() throws(ExpressionError) -> ValueExpression.Node {
        var node = try product()
        while true {
            if take("+") { node = .binary("+", node, try product()) }
            else if take("-") { node = .binary("-", node, try product()) }
            else { return node }
        }
    }

    mutating func product() throws(ExpressionError) -> ValueExpression.Node {
        var node = try unary()
        while true {
            if take("*") { node = .binary("*", node, try unary()) }
            else if take("/") { node = .binary("/", node, try unary()) }
            else { return node }
        }
    }

    mutating func unary() throws(ExpressionError) -> ValueExpression.Node {
        if take("-") { return .negate(try unary()) }
        if take("+") { return try unary() }
        return try power()
    }

    mutating func power() throws(ExpressionError) -> ValueExpression.Node {
        let base = try primary()
        if take("^") { return .binary("^", base, try unary()) }
        return base
    }

    mutating func primary() throws(ExpressionError) -> ValueExpression.Node {
        skipSpaces()
        guard position < characters.count else {
            throw fail("the expression ends early (expected a number, an input name or '(')")
        }
        let start = position
        let character = characters[position]
        if character == "(" {
            position += 1
            let node = try sum()
            guard take(")") else { throw fail("expected ')' to close the '(' at column offset \(start)") }
            return node
        }
        if character.isNumber || character == "." {
            while position < characters.count,
                  characters[position].isNumber || characters[position] == "." || characters[position] == "e"
                    || ((characters[position] == "-" || characters[position] == "+") && characters[position - 1] == "e") {
                position += 1
            }
            guard let number = Double(String(characters[start..<position])) else {
                throw fail("'\(String(characters[start..<position]))' is not a number", at: start)
            }
            return .number(number)
        }
        if character.isLetter || character == "_" {
            while position < characters.count, characters[position].isLetter || characters[position].isNumber
                    || characters[position] == "_" {
                position += 1
            }
            let name = String(characters[start..<position])
            if take("(") {
                guard let arity = ValueExpression.functions[name] else {
                    throw fail("unknown function '\(name)' (expected one of: "
                               + ValueExpression.functions.keys.sorted().joined(separator: ", ") + ")", at: start)
                }
                var arguments: [ValueExpression.Node] = []
                if !take(")") {
                    repeat { arguments.append(try sum()) } while take(",")
                    guard take(")") else { throw fail("expected ',' or ')' in the arguments of \(name)") }
                }
                if let arity, arguments.count != arity {
                    throw fail("\(name) takes \(arity) argument\(arity == 1 ? "" : "s"), not \(arguments.count)", at: start)
                }
                if arguments.isEmpty { throw fail("\(name) takes at least one argument", at: start) }
                return .call(name, arguments)
            }
            guard let index = variables.firstIndex(of: name) else {
                throw fail("unknown input '\(name)' (expected one of: \(variables.joined(separator: ", ")))", at: start)
            }
            return .variable(index)
        }
        throw fail("unexpected '\(character)' (expected a number, an input name or '(')")
    }
}
