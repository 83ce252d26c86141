import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct MarbleTests {
    @Test func parsesOneTickPerCharacter() {
        #expect(
            MarbleDiagram.parse("a--b-c|")
                == [.value("a", at: 0), .value("b", at: 3), .value("c", at: 5), .finish(at: 6)])
    }

    @Test func parsesGroupsMultiCharacterValuesFailuresAndSpaces() {
        #expect(
            MarbleDiagram.parse("-(ab) [c|]")
                == [.value("ab", at: 1), .value("c", at: 2), .finish(at: 2)])
        #expect(MarbleDiagram.parse("a^") == [.value("a", at: 0), .failure(MarbleError(), at: 1)])
        #expect(MarbleDiagram.parse("") == [])
    }

    @Test func renderIsTheInverseOfParse() {
        for diagram in ["a--b-c|", "-(ab)[c|]", "a^", "[ab]-c", ""] {
            #expect(MarbleDiagram.render(MarbleDiagram.parse(diagram)) == diagram)
        }
    }

    @Test func theInputPassedThroughIsRecordedAtItsTicks() async {
        let result = await Marble.validate("a--b-c|", expected: "a--b-c|") { input, _ in input }
        #expect(result.actual == result.expected)
        #expect(result.matches)
        #expect(result.description == "expected a--b-c|, actual a--b-c|")
    }

    @Test func aFailureIsRecordedAsCaret() async {
        let result = await Marble.validate("ab^", expected: "ab^") { input, _ in input }
        #expect(result.actual == "ab^")
    }

    @Test func theTickDurationScalesTheClock() async {
        let result = await Marble.validate("a-b", tick: .milliseconds(10), expected: "--a-b") { input, clock in
            input.delay(.milliseconds(20), clock: clock)
        }
        #expect(result.actual == result.expected)
    }

    @Test func explicitEventsOfAnyTypeWithTypedFailures() async {
        struct Failure: Error, Equatable {}
        let outputs = await Marble.run(
            inputs: [.value(1, at: 0), .value(2, at: 2), .failure(Failure(), at: 3)] as [MarbleEvent<Int, Failure>],
            expected: [.value(10, at: 0), .value(20, at: 2), .failure(Failure(), at: 3)]
        ) { input, _ in
            input.map { $0 * 10 }
        }
        #expect(outputs == [.value(10, at: 0), .value(20, at: 2), .failure(Failure(), at: 3)])
    }

    @Test func cancelAtCancelsTheConsumerAndRecordsNoFinish() async {
        let outputs = await Marble.run(
            inputs: [.value(1, at: 0), .value(2, at: 3)] as [MarbleEvent<Int, Never>],
            expected: [.value(1, at: 0)],
            cancelAt: 1
        ) { input, _ in input }
        #expect(outputs == [.value(1, at: 0)])
    }

    @Test func timersFireAtTheirTicks() async {
        let clock = ManualClock()
        let outputs = await Marble.run(
            inputs: [.value("a", at: 0), .finish(at: 9)] as [MarbleEvent<String, Never>],
            expected: [.value("a", at: 4), .finish(at: 9)],
            clock: clock
        ) { input, clock in
            input.delay(.seconds(4), clock: clock)
        }
        #expect(outputs == [.value("a", at: 4), .finish(at: 9)])
        #expect(clock.now == ManualClock.Instant(offset: .seconds(9)))
        #expect(clock.sleeperCount == 0)
    }

    @Test func eventsDescribeThemselves() {
        #expect(MarbleEvent<Int, MarbleError>.value(1, at: 2).description == "value(1)@2")
        #expect(MarbleEvent<Int, MarbleError>.finish(at: 3).description == "finish@3")
        #expect(MarbleEvent<Int, MarbleError>.failure(MarbleError("boom"), at: 4).description == "failure(boom)@4")
        #expect(MarbleEvent<Int, MarbleError>.finish(at: 3).isTerminal)
    }
}
