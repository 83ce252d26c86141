import ROS2
import TestSupport
import Testing

@testable import Recording

@Suite struct TopicPatternTests {
    @Test(arguments: [
        ("/diot/*/acc_?", "/diot/9F3A0C11/acc_x", true),
        ("/diot/*/acc_?", "/diot/9F3A0C11/gyro_x", false),
        ("/diot/*/acc_?", "/diot/9F3A0C11/acc_xy", false),
        ("/diot/*", "/diot/9F3A0C11/acc_x", false),  // `*` stays within a level
        ("/diot/*/*", "/diot/9F3A0C11/raw/2a37", false),
        ("/diot/**", "/diot/9F3A0C11/raw/2a37", true),  // `**` crosses levels
        ("/**/acc_x", "/diot/9F3A0C11/acc_x", true),
        ("/**/acc_x", "/diot/9F3A0C11/acc_y", false),
        ("/diot/?/a", "/diot///a", false),  // `?` is never `/`
        ("/diot/*/a", "/diot//a", true),  // `*` may match nothing
        ("*", "", true),
        ("", "", true),
        ("", "/a", false),
        ("/comodule/SCOOT-8FB8/speed", "/comodule/SCOOT-8FB8/speed", true),
        ("/comodule/SCOOT-8FB8/speed", "/comodule/SCOOT-8FB8/speeds", false),
        ("/a*b*c", "/aXbYc", true),
        ("/a*b*c", "/aXbY/c", false),
        ("/a**c", "/aX/Y/c", true),
    ])
    func matchesWholeTopics(pattern: String, topic: String, expected: Bool) {
        #expect(TopicPattern(pattern).matches(topic) == expected)
    }

    @Test func selectsTopicsBelowALevelItMatches() {
        let topics = ["/diot/9F3A0C11/acc_x", "/diot/9F3A0C11/raw/2a37", "/comodule/SCOOT/speed", "/diotx/1/a"]
        #expect(TopicPattern("/diot/*").selected(from: topics) == ["/diot/9F3A0C11/acc_x", "/diot/9F3A0C11/raw/2a37"])
        #expect(TopicPattern("/diot").selected(from: topics) == ["/diot/9F3A0C11/acc_x", "/diot/9F3A0C11/raw/2a37"])
        #expect(TopicPattern("/dio").selected(from: topics).isEmpty)
        #expect(TopicPattern("*").selected(from: topics) == topics)
        #expect(TopicPattern("**").selected(from: topics) == topics)
        #expect(TopicPattern("**/raw/*").selected(from: topics) == ["/diot/9F3A0C11/raw/2a37"])
        #expect(TopicPattern("/*/*/acc_x").selected(from: topics) == ["/diot/9F3A0C11/acc_x"])
        #expect(!TopicPattern("/diot/*/acc_x").selects("/diot/9F3A0C11/acc_xy"))
    }

    /// The automaton agrees with a plain backtracking definition of the rule
    /// on every pattern and topic over a small alphabet (short enough for the
    /// backtracking to be quick).
    @Test func agreesWithTheBacktrackingDefinition() {
        var generator = SplitMix64(seed: 11)
        let patternAlphabet: [Character] = ["a", "b", "/", "*", "?"]
        let topicAlphabet: [Character] = ["a", "b", "/"]
        for _ in 0..<20_000 {
            let pattern = String(
                (0..<Int(generator.next() % 7)).map { _ in patternAlphabet[Int(generator.next() % 5)] })
            let topic = String((0..<Int(generator.next() % 8)).map { _ in topicAlphabet[Int(generator.next() % 3)] })
            let expected = Self.reference(Array(pattern.utf8)[...], Array(topic.utf8)[...])
            #expect(TopicPattern(pattern).matches(topic) == expected, "'\(pattern)' against '\(topic)'")
            let selectExpected = (0...topic.utf8.count).contains { end in
                (end == topic.utf8.count || Array(topic.utf8)[end] == UInt8(ascii: "/"))
                    && Self.reference(Array(pattern.utf8)[...], Array(topic.utf8)[..<end])
            }
            #expect(TopicPattern(pattern).selects(topic) == selectExpected, "'\(pattern)' selecting '\(topic)'")
        }
    }

    /// Many stars against a long topic: the steps stay within
    /// (topic length) × (pattern tokens), where backtracking would take
    /// exponentially long.
    @Test func aPathologicalPatternTakesLinearSteps() {
        let topic = "/" + String(repeating: "b", count: 10_000)
        let pattern = TopicPattern("/**********a")
        let (matched, steps) = pattern.run(topic, acceptingLevelPrefixes: false)
        #expect(!matched)
        #expect(steps <= topic.utf8.count * pattern.tokens.count)
        let levels = TopicPattern("/*a*a*a*a*a*a*a*a*a*a*b")
        let long = "/" + String(repeating: "a", count: 10_000)
        let result = levels.run(long, acceptingLevelPrefixes: true)
        #expect(!result.matched)
        #expect(result.steps <= long.utf8.count * levels.tokens.count)
        #expect(TopicPattern("/**a").matches("/" + String(repeating: "b/", count: 5_000) + "a"))
    }

    /// The rule's definition: `*` any run without `/`, `**` any run, `?` one non-`/` character.
    static func reference(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>) -> Bool {
        let star = UInt8(ascii: "*")
        let slash = UInt8(ascii: "/")
        guard let first = pattern.first else { return text.isEmpty }
        if first == star {
            let crosses = pattern.dropFirst().first == star
            let rest = pattern.dropFirst(crosses ? 2 : 1)
            var candidate = text
            while true {
                if reference(rest, candidate) { return true }
                guard let next = candidate.first, crosses || next != slash else { return false }
                candidate = candidate.dropFirst()
            }
        }
        guard let next = text.first else { return false }
        if first == UInt8(ascii: "?") ? next == slash : first != next { return false }
        return reference(pattern.dropFirst(), text.dropFirst())
    }
}
