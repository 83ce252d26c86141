import Streams
import TelemetryTesting
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct MarbleTests {
    @Test func parsesOneTickPerCharacter() throws {
        #expect(
            try MarbleDiagram.parse("a--b-c|")
                == [.value("a", at: 0), .value("b", at: 3), .value("c", at: 5), .finish(at: 6)])
    }

    @Test func parsesGroupsMultiCharacterValuesFailuresAndWhitespace() throws {
        #expect(
            try MarbleDiagram.parse("-(ab) [c|]")
                == [.value("ab", at: 1), .value("c", at: 2), .finish(at: 2)])
        #expect(try MarbleDiagram.parse("a^") == [.value("a", at: 0), .failure(MarbleError(), at: 1)])
        #expect(try MarbleDiagram.parse("") == [])
        #expect(try MarbleDiagram.parse("a\t-\n b") == [.value("a", at: 0), .value("b", at: 2)])
        // Symbols and spaces as values, and balanced parentheses inside one.
        #expect(
            try MarbleDiagram.parse("(|)(-)( )((1, 2))()")
                == [
                    .value("|", at: 0), .value("-", at: 1), .value(" ", at: 2), .value("(1, 2)", at: 3),
                    .value("", at: 4),
                ])
    }

    @Test func renderIsTheInverseOfParse() throws {
        for diagram in ["a--b-c|", "-(ab)[c|]", "a^", "[ab]-c", "", "(|)-(-)[(^)(#)]((1, 2))", "( )()"] {
            #expect(MarbleDiagram.render(try MarbleDiagram.parse(diagram)) == diagram)
        }
    }

    /// A value that is a symbol renders in parentheses, never as the symbol.
    @Test func renderTellsValuesFromSymbols() {
        let events: [MarbleEvent<String, MarbleError>] = [
            .value("|", at: 0), .value("-", at: 1), .value("^", at: 2), .value("[", at: 3), .value(" ", at: 4),
            .finish(at: 5),
        ]
        #expect(MarbleDiagram.render(events) == "(|)(-)(^)([)( )|")
        #expect(MarbleDiagram.render([MarbleEvent<String, MarbleError>.value("a", at: -1)]) == "")
    }

    /// Every malformed diagram is an error naming where and why, never a
    /// quietly different script.
    @Test(arguments: [
        ("[ab|", 4, "the group opened at 0 is not closed"),
        ("a(bc", 4, "the value opened at 1 is not closed"),
        ("a]b", 1, "']' closes no group"),
        ("a)b", 1, "')' closes no value"),
        ("[a[b]c]", 2, "a group inside the group opened at 0"),
        ("[a-b]", 2, "a '-' inside the group opened at 0: a group is one tick"),
        ("a[]b", 2, "an empty group: write '-' for a tick without events"),
        ("a-b-c|]", 6, "']' closes no group"),
        ("a-b-c[|", 7, "the group opened at 5 is not closed"),
    ])
    func malformedDiagramsThrow(diagram: String, position: Int, reason: String) {
        #expect(throws: MarbleSyntaxError(diagram: diagram, position: position, reason: reason)) {
            try MarbleDiagram.parse(diagram)
        }
    }

    @Test func aMalformedDiagramFailsValidateInsteadOfRunning() async {
        let expected = await Marble.validate("a-b", expected: "a-b|]") { input, _ in input }
        #expect(!expected.matches)
        #expect(expected.actual.contains("']' closes no group"))
        let input = await Marble.validate("a-[b", expected: "a-b") { input, _ in input }
        #expect(!input.matches)
        #expect(input.actual.contains("the group opened at 2 is not closed"))
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
            inputs: [.value(1, at: 0), .value(2, at: 2), .failure(Failure(), at: 3)] as [MarbleEvent<Int, Failure>]
        ) { input, _ in
            input.map { $0 * 10 }
        }
        #expect(outputs.mismatch(expected: [.value(10, at: 0), .value(20, at: 2), .failure(Failure(), at: 3)]) == nil)
    }

    @Test func cancelAtCancelsTheConsumerAndRecordsNoFinish() async {
        let outputs = await Marble.run(
            inputs: [.value(1, at: 0), .value(2, at: 3)] as [MarbleEvent<Int, Never>],
            cancelAt: 1
        ) { input, _ in input }
        #expect(outputs.mismatch(expected: [.value(1, at: 0)]) == nil)
    }

    @Test func timersFireAtTheirTicks() async {
        let clock = ManualClock()
        let outputs = await Marble.run(
            inputs: [.value("a", at: 0), .finish(at: 9)] as [MarbleEvent<String, Never>],
            clock: clock
        ) { input, clock in
            input.delay(.seconds(4), clock: clock)
        }
        #expect(outputs.mismatch(expected: [.value("a", at: 4), .finish(at: 9)]) == nil)
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
