/// The logic of ``ChunkedByTimePublisher``: a chunk opens with its first
/// element and closes when the interval has passed since then, or when it
/// holds `count` elements, whichever comes first.
@usableFromInline
package struct ChunkedByTimeStateMachine<Element: Sendable, Failure: Error, Instant: InstantProtocol>:
    ClockedStateMachine
{
    @usableFromInline package typealias Input = Element
    @usableFromInline package typealias UpstreamFailure = Failure
    @usableFromInline package typealias Output = [Element]
    @usableFromInline package typealias Action = ClockedAction<Output, Failure, Instant>

    @usableFromInline
    enum State {
        case empty
        case open([Element])
    }

    @usableFromInline var state = State.empty
    @usableFromInline package let interval: Instant.Duration
    /// The most elements of a chunk, or `nil` for time only.
    @usableFromInline package let count: Int?

    @inlinable
    package init(interval: Instant.Duration, count: Int?) {
        self.interval = interval
        self.count = count
    }

    @inlinable
    package mutating func start(at now: Instant) -> Action {
        .none
    }

    /// An element that arrives at the closing instant of a chunk belongs to
    /// that chunk.
    @inlinable
    package mutating func receive(_ input: Element, at now: Instant) -> Action {
        var chunk: [Element]
        var timer = Action.Timer.keep
        switch state {
        case .empty:
            chunk = []
            if let count {
                chunk.reserveCapacity(count)
            }
            timer = .arm(now.advanced(by: interval))
        case .open(let open):
            chunk = open
        }
        state = .empty
        chunk.append(input)
        if let count, chunk.count >= count {
            return .emit(chunk, timer: .cancel)
        }
        state = .open(chunk)
        return Action(timer: timer)
    }

    /// A partial chunk is emitted at the finish instant, then the finish.
    @inlinable
    package mutating func finish(at now: Instant) -> Action {
        guard case .open(let chunk) = state else {
            return Action(timer: .cancel, end: .finish)
        }
        state = .empty
        return Action(outputs: .one(chunk), timer: .cancel, end: .finish)
    }

    /// A partial chunk is dropped; the error ends the stream at once.
    @inlinable
    package mutating func fail(_ error: Failure) -> Action {
        state = .empty
        return Action(end: .fail(error))
    }

    @inlinable
    package mutating func timerFired(at deadline: Instant) -> Action {
        guard case .open(let chunk) = state else {
            return .none
        }
        state = .empty
        return .emit(chunk)
    }
}
