import ROS2
import Testing

@testable import Recording

/// The topics `tlm cat` and `tlm filter` take: globs and regular
/// expressions to include, globs to exclude.
@Suite struct TopicFilterTests {
    static let topics = [
        "/diot/d_1/acc_x", "/diot/d_1/acc_y", "/diot/d_1/acc_z", "/diot/d_1/raw/imu", "/comodule/s_1/speed",
        "/jacquard/j_1/gesture",
    ]

    @Test func withNothingToIncludeEveryTopicIsIncluded() throws {
        let all = try TopicFilter()
        #expect(all.topics(of: Self.topics) == Self.topics)
        #expect(all.description == "(every topic)")
        let allButDiot = try TopicFilter(exclude: [TopicPattern("/diot/*")])
        #expect(allButDiot.topics(of: Self.topics) == ["/comodule/s_1/speed", "/jacquard/j_1/gesture"])
    }

    @Test func globsAndRegexesIncludeAndGlobsExclude() throws {
        let filter = try TopicFilter(
            include: [TopicPattern("/diot/**")], regexes: ["gest"], exclude: [TopicPattern("**/raw/**")])
        #expect(
            filter.topics(of: Self.topics)
                == ["/diot/d_1/acc_x", "/diot/d_1/acc_y", "/diot/d_1/acc_z", "/jacquard/j_1/gesture"])
        #expect(filter.description == "--topic '/diot/**' --regex 'gest' --exclude '**/raw/**'")
        // A regular expression matches anywhere in the topic unless anchored.
        let anchored = try TopicFilter(regexes: ["/acc_[xy]$"])
        #expect(anchored.topics(of: Self.topics) == ["/diot/d_1/acc_x", "/diot/d_1/acc_y"])
        #expect(try TopicFilter(regexes: ["^acc"]).topics(of: Self.topics).isEmpty)
    }

    @Test func aRegexThatDoesNotCompileIsAnError() {
        #expect {
            try TopicFilter(regexes: ["(unclosed"])
        } throws: { error in
            (error as? RecordingError)?.message.hasPrefix("--regex '(unclosed' is not a valid regular expression")
                == true
        }
    }

    /// Issue 36 item 5: a pattern that backtracks for ever in a backtracking
    /// engine answers at once (the C library's matcher does not backtrack),
    /// and what would still be costly is refused up front.
    @Test(.timeLimit(.minutes(1))) func noPatternBacktracksForEver() throws {
        let long = "/diot/d_9f3a0c11aaaaaaaaaaaaaaaaaaaaaaaa/acc_x_" + String(repeating: "a", count: 2_000)
        let nested = try TopicFilter(regexes: ["^(([a-z0-9_/])+)+X$", "^((a|a)*)*X$", "(x+x+)+y"])
        #expect(nested.topics(of: Self.topics + [long]).isEmpty)
        #expect(
            try TopicFilter(regexes: ["^(([a-z0-9_/])+)+x$"]).topics(of: Self.topics + [long]) == ["/diot/d_1/acc_x"])
        #expect(try TopicFilter(regexes: ["^(([a-z0-9_/])+)+$"]).topics(of: [long]) == [long])
        for (pattern, reason) in [
            ("(acc)\\1", "back-references (\\1 … \\9) are not supported"),
            ("((a{1,100}){1,100}){1,100}", "its repetition counts allow more than 1000 repeats in all"),
            ("a{2000}", "its repetition counts allow more than 1000 repeats in all"),
            (String(repeating: "a", count: 1025), "it is longer than 1024 bytes"),
        ] {
            #expect {
                try TopicFilter(regexes: [pattern])
            } throws: { error in
                (error as? RecordingError)?.message
                    == "--regex '\(pattern)' is not a valid regular expression: \(reason)"
            }
        }
        // Counts within the bound are fine.
        #expect(try TopicFilter(regexes: ["acc_[xyz]{1}$", "a{2,}"]).topics(of: Self.topics).count == 3)
    }
}
