/// Stops the benchmark run with `message` when `condition` is false.
///
/// `precondition` prints no message in an optimised build, and benchmarks
/// always run optimised: a setup check that fails must say why.
public func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
