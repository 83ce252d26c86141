import Testing

@testable import Streams

@Suite struct QueueTests {
    @Test func popsInFirstInFirstOutOrderAcrossCompactions() {
        var queue = Queue<Int>()
        var expected: [Int] = []
        var next = 0
        for round in 0..<50 {
            for _ in 0..<(round % 7 + 3) {
                queue.append(next)
                expected.append(next)
                next += 1
            }
            for _ in 0..<(round % 5 + 1) {
                #expect(queue.popFirst() == expected.removeFirst())
            }
            #expect(queue.count == expected.count)
        }
        while let element = queue.popFirst() {
            #expect(element == expected.removeFirst())
        }
        #expect(expected.isEmpty)
        #expect(queue.isEmpty)
        #expect(queue.popFirst() == nil)
    }
}
