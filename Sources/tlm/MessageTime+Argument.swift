public import ArgumentParser
import Recording

/// `--time sample|receive`.
extension MessageTime: ExpressibleByArgument {}
