/// A one-line error for the user: printed as `Error: message` with exit status 1, no stack trace.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
