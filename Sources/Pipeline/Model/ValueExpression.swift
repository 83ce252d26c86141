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
///
/// An expression is bounded so that no input can exhaust the stack: at most
/// ``maximumLength`` bytes of text, ``maximumTerms`` numbers and input names,
/// and ``maximumDepth`` levels of nesting (parentheses, function calls, signs
/// and the right side of `^` each add one). It is compiled to a postfix
/// program that ``evaluate(_:)`` runs in a loop, without recursion.
public struct ValueExpression: Sendable, Hashable, CustomStringConvertible {
    /// One step of the postfix program, working on a stack of values.
    enum Instruction: Sendable, Hashable {
        case number(Double)
        case variable(Int)
        case negate
        case add, subtract, multiply, divide, power
        case sqrt, abs, atan2
        case min(Int), max(Int), hypot(Int)
    }

    /// The longest expression, in bytes of UTF-8 text: 64 KiB.
    public static let maximumLength = 64 << 10
    /// The most numbers and input names an expression may hold.
    public static let maximumTerms = 1_000
    /// The deepest nesting of parentheses, function calls, signs and powers.
    public static let maximumDepth = 64

    /// The expression as written.
    public let text: String
    /// The variable names, in the order ``evaluate(_:)`` takes their values.
    public let variables: [String]
    /// The postfix program.
    let program: [Instruction]
    /// The most values the program holds on its stack at once.
    let stackSize: Int

    /// The functions and their argument counts (`nil`: one or more).
    static let functions: [String: Int?] = ["sqrt": 1, "abs": 1, "min": nil, "max": nil, "hypot": nil, "atan2": 2]

    /// Parses an expression.
    ///
    /// - Parameters:
    ///   - text: The expression.
    ///   - variables: The names it may use.
    /// - Throws: ``ExpressionError`` with the offset (in characters) of the
    ///   problem, also when the expression exceeds ``maximumLength``,
    ///   ``maximumTerms`` or ``maximumDepth``.
    public init(parsing text: String, variables: [String]) throws(ExpressionError) {
        let length = text.utf8.count
        guard length <= Self.maximumLength else {
            throw ExpressionError(
                offset: 0,
                message: "the expression is longer than \(Self.maximumLength >> 10) KiB "
                    + "(\(length) bytes)")
        }
        var parser = ExpressionParser(text: text, variables: variables)
        try parser.parse()
        self.program = parser.program
        self.stackSize = max(parser.maximumStack, 1)
        self.text = text
        self.variables = variables
    }

    /// The value for the variables' values, in ``variables`` order.
    ///
    /// - Parameter values: One value per variable.
    /// - Returns: The result (IEEE arithmetic: division by zero gives an infinity or NaN).
    public func evaluate(_ values: [Double]) -> Double {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: stackSize) { stack in
            var top = 0  // values on the stack
            for instruction in program {
                switch instruction {
                case .number(let number):
                    stack[top] = number
                    top += 1
                case .variable(let index):
                    stack[top] = values[index]
                    top += 1
                case .negate:
                    stack[top - 1] = -stack[top - 1]
                case .sqrt:
                    stack[top - 1] = stack[top - 1].squareRoot()
                case .abs:
                    stack[top - 1] = Swift.abs(stack[top - 1])
                case .add, .subtract, .multiply, .divide, .power, .atan2:
                    top -= 1
                    let l = stack[top - 1]
                    let r = stack[top]
                    stack[top - 1] =
                        switch instruction {
                        case .add: l + r
                        case .subtract: l - r
                        case .multiply: l * r
                        case .divide: l / r
                        case .power: pow(l, r)
                        default: atan2(l, r)
                        }
                case .min(let count), .max(let count), .hypot(let count):
                    let first = top - count
                    var result: Double
                    switch instruction {
                    case .min:
                        result = stack[first]
                        for index in first + 1..<top where stack[index] < result { result = stack[index] }
                    case .max:
                        result = stack[first]
                        for index in first + 1..<top where result < stack[index] { result = stack[index] }
                    default:
                        result = 0
                        for index in first..<top { result += stack[index] * stack[index] }
                        result = result.squareRoot()
                    }
                    top = first + 1
                    stack[first] = result
                }
            }
            return stack[0]
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

/// A recursive-descent parser for ``ValueExpression`` that emits the postfix
/// program as it goes; its recursion is bounded by the nesting depth.
private struct ExpressionParser {
    let characters: [Character]
    let variables: [String]
    var position = 0
    var program: [ValueExpression.Instruction] = []
    var depth = 0
    var terms = 0
    var stack = 0
    var maximumStack = 0

    init(text: String, variables: [String]) {
        self.characters = Array(text)
        self.variables = variables
    }

    mutating func parse() throws(ExpressionError) {
        skipSpaces()
        guard position < characters.count else {
            throw fail("empty expression (expected a formula such as sqrt(x^2 + y^2))")
        }
        try sum()
        skipSpaces()
        if position < characters.count {
            throw fail("unexpected '\(characters[position])' (expected an operator + - * / ^ or the end)")
        }
    }

    func fail(_ message: String, at offset: Int? = nil) -> ExpressionError {
        ExpressionError(offset: offset ?? position, message: message)
    }

    /// Emits an instruction that takes `popped` values and pushes one.
    mutating func emit(_ instruction: ValueExpression.Instruction, popping popped: Int) {
        program.append(instruction)
        stack += 1 - popped
        maximumStack = max(maximumStack, stack)
    }

    /// One level deeper, at `offset`; refused past the maximum depth.
    mutating func enter(at offset: Int) throws(ExpressionError) {
        depth += 1
        if depth > ValueExpression.maximumDepth {
            throw fail("the expression is nested more than \(ValueExpression.maximumDepth) deep", at: offset)
        }
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

    mutating func sum() throws(ExpressionError) {
        try product()
        while true {
            if take("+") {
                try product()
                emit(.add, popping: 2)
            } else if take("-") {
                try product()
                emit(.subtract, popping: 2)
            } else {
                return
            }
        }
    }

    mutating func product() throws(ExpressionError) {
        try unary()
        while true {
            if take("*") {
                try unary()
                emit(.multiply, popping: 2)
            } else if take("/") {
                try unary()
                emit(.divide, popping: 2)
            } else {
                return
            }
        }
    }

    mutating func unary() throws(ExpressionError) {
        if take("-") {
            try enter(at: position - 1)
            try unary()
            emit(.negate, popping: 1)
            depth -= 1
            return
        }
        if take("+") {
            try enter(at: position - 1)
            try unary()
            depth -= 1
            return
        }
        try power()
    }

    mutating func power() throws(ExpressionError) {
        try primary()
        if take("^") {
            try enter(at: position - 1)
            try unary()
            emit(.power, popping: 2)
            depth -= 1
        }
    }

    mutating func term(at offset: Int) throws(ExpressionError) {
        terms += 1
        if terms > ValueExpression.maximumTerms {
            throw fail("the expression has more than \(ValueExpression.maximumTerms) terms", at: offset)
        }
    }

    mutating func primary() throws(ExpressionError) {
        skipSpaces()
        guard position < characters.count else {
            throw fail("the expression ends early (expected a number, an input name or '(')")
        }
        let start = position
        let character = characters[position]
        if character == "(" {
            try enter(at: start)
            position += 1
            try sum()
            guard take(")") else { throw fail("expected ')' to close the '(' at column offset \(start)") }
            depth -= 1
            return
        }
        if character.isNumber || character == "." {
            while position < characters.count,
                characters[position].isNumber || characters[position] == "." || characters[position] == "e"
                    || ((characters[position] == "-" || characters[position] == "+") && characters[position - 1] == "e")
            {
                position += 1
            }
            guard let number = Double(String(characters[start..<position])) else {
                throw fail("'\(String(characters[start..<position]))' is not a number", at: start)
            }
            try term(at: start)
            emit(.number(number), popping: 0)
            return
        }
        if character.isLetter || character == "_" {
            while position < characters.count,
                characters[position].isLetter || characters[position].isNumber
                    || characters[position] == "_"
            {
                position += 1
            }
            let name = String(characters[start..<position])
            if take("(") {
                guard let arity = ValueExpression.functions[name] else {
                    throw fail(
                        "unknown function '\(name)' (expected one of: "
                            + ValueExpression.functions.keys.sorted().joined(separator: ", ") + ")", at: start)
                }
                try enter(at: start)
                var count = 0
                if !take(")") {
                    repeat {
                        try sum()
                        count += 1
                    } while take(",")
                    guard take(")") else { throw fail("expected ',' or ')' in the arguments of \(name)") }
                }
                if let arity, count != arity {
                    throw fail("\(name) takes \(arity) argument\(arity == 1 ? "" : "s"), not \(count)", at: start)
                }
                if count == 0 { throw fail("\(name) takes at least one argument", at: start) }
                depth -= 1
                switch name {
                case "sqrt": emit(.sqrt, popping: 1)
                case "abs": emit(.abs, popping: 1)
                case "atan2": emit(.atan2, popping: 2)
                case "min": emit(.min(count), popping: count)
                case "max": emit(.max(count), popping: count)
                default: emit(.hypot(count), popping: count)
                }
                return
            }
            guard let index = variables.firstIndex(of: name) else {
                throw fail("unknown input '\(name)' (expected one of: \(variables.joined(separator: ", ")))", at: start)
            }
            try term(at: start)
            emit(.variable(index), popping: 0)
            return
        }
        throw fail("unexpected '\(character)' (expected a number, an input name or '(')")
    }
}
