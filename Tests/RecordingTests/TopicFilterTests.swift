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
}
