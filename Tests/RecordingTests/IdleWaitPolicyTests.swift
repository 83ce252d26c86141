import Testing

@testable import DeviceRecording
@testable import Recording

@Suite struct IdleWaitPolicyTests {
    static let start = ContinuousClock.now

    /// Runs `events` (`nil`: one input recorded; an offset in microseconds:
    /// the buffer ran empty then) and returns the sleeps decided, in order
    /// (`nil`: wait at once), in microseconds.
    static func sleeps(interval: Duration, capacity: Int = 65_536, _ events: [Int?]) -> [Int?] {
        var policy = IdleWaitPolicy(interval: interval, capacity: capacity, start: start)
        var sleeps: [Int?] = []
        for event in events {
            guard let microseconds = event else {
                policy.recorded()
                continue
            }
            sleeps.append(
                policy.bufferRanEmpty(at: start + .microseconds(microseconds)).map { Int($0 / .microseconds(1)) })
        }
        return sleeps
    }

    @Test func aQuietInputIsWaitedForOneInputAtATime() {
        // One input per empty buffer, 5 ms apart: never sleep.
        #expect(
            Self.sleeps(interval: .milliseconds(1), [nil, 5000, nil, 10_000, nil, 15_000]) == [nil, nil, nil])
    }

    @Test func inputsLessThanAnIntervalApartGatherForTheInterval() {
        // Empty again 1 ms after the last time, under the 2 ms interval: busy.
        #expect(Self.sleeps(interval: .milliseconds(2), [nil, 5000, nil, 6000]) == [nil, 2000])
    }

    @Test func moreThanOneInputSinceTheLastEmptyBufferGathers() {
        // After a sleep, the task found three inputs: still busy, however long ago.
        #expect(Self.sleeps(interval: .milliseconds(1), [nil, 5000, nil, nil, nil, 50_000]) == [nil, 1000])
    }

    @Test func aBusyInputThatQuietensIsWaitedForAgain() {
        #expect(
            Self.sleeps(
                interval: .milliseconds(1), [nil, 5000, nil, 5100, nil, nil, 6200, nil, 20_000, nil, 40_000])
                == [nil, 1000, 1000, nil, nil])
    }

    @Test func aSmallBufferSleepsOnlyUntilItWouldBeHalfFull() {
        // Buffer of 10: 4 inputs in the 400 µs since the last empty buffer
        // fill half of it (5) in 500 µs, so the 2 ms sleep is cut to 500 µs.
        #expect(
            Self.sleeps(interval: .milliseconds(2), capacity: 10, [nil, 5000, nil, nil, nil, nil, 5400]) == [nil, 500])
        // 1,000 inputs in 1 ms would half fill it in 5 µs: not worth a sleep, wait at once.
        #expect(
            Self.sleeps(
                interval: .milliseconds(2), capacity: 10, [nil, 5000] + Array(repeating: nil, count: 1000) + [6000])
                == [nil, nil])
    }

    @Test func aZeroOrNegativeIntervalNeverSleeps() {
        for interval in [Duration.zero, .milliseconds(-3)] {
            #expect(Self.sleeps(interval: interval, [nil, nil, nil, 1, nil, 2, nil, 3]) == [nil, nil, nil])
        }
    }
}
