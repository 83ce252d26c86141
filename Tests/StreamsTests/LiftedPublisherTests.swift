import Streams
import Testing

@Suite struct LiftedPublisherTests {
    @Test func forwardsTheElementsOfAnyAsyncSequence() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        for value in 1...3 { continuation.yield(value) }
        continuation.finish()
        let lifted = stream.publisher
        #expect(type(of: lifted) == LiftedPublisher<AsyncStream<Int>>.self)
        #expect(await collect(lifted.map { $0 + 1 }) == [2, 3, 4])
    }

    @Test func initializerLiftsToo() async {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        continuation.yield("a")
        continuation.finish()
        #expect(await collect(LiftedPublisher(stream)) == ["a"])
    }

    @Test func forwardsTheBaseFailureUnchanged() async {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Int.self)
        continuation.yield(1)
        continuation.finish(throwing: TestError.upstream)
        let result = await collect(stream.publisher)
        switch result {
        case .success(let values):
            Issue.record("expected a failure, got \(values)")
        case .failure(let error):
            #expect(error as? TestError == .upstream)
        }
    }

    @Test func liftingAPublisherReturnsItself() {
        let probe = ProbePublisher<Never>([1])
        let lifted = probe.publisher
        #expect(type(of: lifted) == ProbePublisher<Never>.self)
    }

    @Test func forTryAwaitConsumesAPublisher() async throws {
        var seen: [Int] = []
        for try await value in ProbePublisher<TestError>([1, 2]).map({ $0 * 2 }) {
            seen.append(value)
        }
        #expect(seen == [2, 4])
    }
}
