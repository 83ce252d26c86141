public import ArgumentParser
public import Session

/// `import --clock-fit whole|online`.
extension SampleTimeFit: ExpressibleByArgument {}
