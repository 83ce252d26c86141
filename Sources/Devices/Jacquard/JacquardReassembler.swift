/// Reassembles the fragments of one characteristic into protocol messages.
///
/// Rules, from the spec: a FIRST fragment resets any message in progress;
/// a counter out of sequence, a message over 1024 bytes, or a LAST fragment
/// completing a byte count different from the declared length drops the
/// message with a typed error; a fragment with neither FIRST nor a message in
/// progress is an error. The buffer is allocated once (1024 bytes) and
/// reused, and a single-fragment message (header `C0`) is never copied.
///
/// ```swift
/// var reassembler = JacquardReassembler(characteristic: JacquardGATT.response)
/// let fragments = JacquardFragmenter.fragments(of: Array(repeating: 7, count: 100))
/// print(try reassembler.append(fragments[0]) == nil)   // true: in progress
/// print(try reassembler.append(fragments[1])?.count)   // Optional(100)
/// ```
public struct JacquardReassembler: Sendable {
    /// The outcome of one fragment, for the decoder's copy-free path.
    @usableFromInline
    enum Step {
        /// The message is still in progress.
        case incomplete
        /// A single-fragment message, complete in the fragment from this offset.
        case inPlace(start: Int)
        /// A message completed in the reassembly buffer.
        case buffered
        /// The fragment was rejected (any message in progress is dropped).
        case failure(JacquardDecodeError.Code)
    }

    /// The characteristic whose fragments this reassembles (for errors).
    public let characteristic: CharacteristicUUID
    /// The payload collected so far.
    @usableFromInline
    var buffer: [UInt8]
    /// The length declared by the FIRST fragment.
    @usableFromInline
    var declaredLength: Int
    /// The counter the next fragment must carry.
    @usableFromInline
    var nextCounter: UInt8
    /// Whether a message is in progress.
    @usableFromInline
    var inProgress: Bool

    /// Creates a reassembler with no message in progress.
    ///
    /// - Parameter characteristic: The characteristic whose fragments it reassembles.
    public init(characteristic: CharacteristicUUID) {
        self.characteristic = characteristic
        buffer = []
        buffer.reserveCapacity(JacquardGATT.maximumMessageLength)
        declaredLength = 0
        nextCounter = 0
        inProgress = false
    }

    /// Whether a message is in progress (a FIRST fragment arrived without its LAST).
    public var isInProgress: Bool { inProgress }

    /// Drops any message in progress.
    public mutating func reset() {
        inProgress = false
        buffer.removeAll(keepingCapacity: true)
    }

    /// Adds one fragment.
    ///
    /// - Parameter fragment: The notification's value.
    /// - Returns: The complete message when this fragment was its LAST, otherwise `nil`.
    /// - Throws: ``JacquardDecodeError`` when the fragment breaks the rules;
    ///   the message in progress, if any, is dropped.
    public mutating func append(_ fragment: [UInt8]) throws(JacquardDecodeError) -> [UInt8]? {
        let step = fragment.withUnsafeBytes { consume($0) }
        switch step {
        case .incomplete: return nil
        case .inPlace(let start): return Array(fragment[start...])
        case .buffered: return buffer
        case .failure(let code):
            throw JacquardDecodeError(code: code, characteristic: characteristic, length: fragment.count)
        }
    }

    /// Applies the fragment rules to one fragment.
    @inlinable
    @inline(__always)
    mutating func consume(_ fragment: UnsafeRawBufferPointer) -> Step {
        // Fast path: a single-fragment message (header C0) under 128 bytes
        // while nothing is in progress, so there is no state to reset.
        if fragment.count >= 2, !inProgress, fragment[0] == 0xC0 {
            let length = fragment[1]
            if length < 0x80 {
                return Int(length) == fragment.count &- 2 ? .inPlace(start: 2) : .failure(.lengthMismatch)
            }
        }
        return consumeFragment(fragment)
    }

    /// Applies the fragment rules to one fragment (the general path).
    @inlinable
    mutating func consumeFragment(_ fragment: UnsafeRawBufferPointer) -> Step {
        guard let header = fragment.first else { return .failure(.emptyFragment) }
        let counter = header & JacquardFragmenter.counterMask
        let isLast = header & JacquardFragmenter.lastFlag != 0
        if header & JacquardFragmenter.firstFlag != 0 {
            if inProgress { reset() }
            guard counter == 0 else { return .failure(.fragmentOutOfSequence) }
            var reader = JacquardProtobufReader(fragment, offset: 1)
            let length: UInt64
            do throws(JacquardProtobufError) {
                length = try reader.readVarint()
            } catch {
                return .failure(.invalidMessageLength)
            }
            guard length <= UInt64(JacquardGATT.maximumMessageLength) else { return .failure(.messageTooLong) }
            let start = reader.offset
            let count = fragment.count &- start
            if isLast {
                return count == Int(length) ? .inPlace(start: start) : .failure(.lengthMismatch)
            }
            // Notifications over 64 bytes are possible with a larger MTU.
            guard count <= JacquardGATT.maximumMessageLength else { return .failure(.messageTooLong) }
            buffer.removeAll(keepingCapacity: true)
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: fragment[start...]))
            declaredLength = Int(length)
            nextCounter = 1
            inProgress = true
            return .incomplete
        }
        guard inProgress else { return .failure(.fragmentWithoutStart) }
        guard counter == nextCounter else {
            reset()
            return .failure(.fragmentOutOfSequence)
        }
        guard buffer.count &+ fragment.count &- 1 <= JacquardGATT.maximumMessageLength else {
            reset()
            return .failure(.messageTooLong)
        }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: fragment[1...]))
        nextCounter = (nextCounter &+ 1) & JacquardFragmenter.counterMask
        guard isLast else { return .incomplete }
        inProgress = false
        return buffer.count == declaredLength ? .buffered : .failure(.lengthMismatch)
    }
}
