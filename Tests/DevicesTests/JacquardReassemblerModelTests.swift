import Testing

@testable import Devices

/// A deliberately plain model of the spec's fragment rules, written
/// independently of ``JacquardReassembler``.
private struct FragmentModel {
    var message: [UInt8]?
    var declared = 0
    var next = 0

    enum Outcome: Equatable {
        case incomplete
        case complete([UInt8])
        case failure(JacquardDecodeError.Code)
    }

    mutating func feed(_ fragment: [UInt8]) -> Outcome {
        guard let header = fragment.first else { return .failure(.emptyFragment) }
        let first = header & 0x80 != 0
        let last = header & 0x40 != 0
        let counter = Int(header & 0x3F)
        if first {
            message = nil
            if counter != 0 { return .failure(.fragmentOutOfSequence) }
            var length = 0
            var index = 1
            var shift = 0
            while true {
                guard index < fragment.count, index <= 10 else { return .failure(.invalidMessageLength) }
                let byte = fragment[index]
                index += 1
                if shift < 63 {
                    length |= Int(byte & 0x7F) << shift
                } else if byte > 1 {
                    return .failure(.invalidMessageLength)
                }
                if length > 1 << 40 { length = 1 << 40 }  // anything this large is "too long"
                if byte & 0x80 == 0 { break }
                shift += 7
            }
            if length > 1024 { return .failure(.messageTooLong) }
            let payload = Array(fragment[index...])
            if last { return payload.count == length ? .complete(payload) : .failure(.lengthMismatch) }
            if payload.count > 1024 { return .failure(.messageTooLong) }
            message = payload
            declared = length
            next = 1
            return .incomplete
        }
        guard var current = message else { return .failure(.fragmentWithoutStart) }
        guard counter == next else {
            message = nil
            return .failure(.fragmentOutOfSequence)
        }
        current += fragment.dropFirst()
        if current.count > 1024 {
            message = nil
            return .failure(.messageTooLong)
        }
        next = (next + 1) % 64
        if last {
            message = nil
            return current.count == declared ? .complete(current) : .failure(.lengthMismatch)
        }
        message = current
        return .incomplete
    }
}

@Suite struct JacquardReassemblerModelTests {
    /// 100 000 fragments, mostly from real fragmenting with mutations
    /// (dropped, repeated, reordered, corrupted headers, oversized), agree
    /// with the plain model fragment by fragment.
    @Test func agreesWithAPlainModel() {
        var generator = SeededRandom(seed: 0x0F4A_6E47)
        var reassembler = JacquardReassembler(characteristic: JacquardGATT.notify)
        var model = FragmentModel()
        var stream: [[UInt8]] = []
        var outcomes: [String: Int] = [:]
        for _ in 0..<100_000 {
            if stream.isEmpty {
                let length =
                    Bool.random(using: &generator)
                    ? Int.random(in: 0...70, using: &generator) : Int.random(in: 0...1_100, using: &generator)
                let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let size = Int.random(in: 12...80, using: &generator)
                stream = JacquardFragmenter.fragments(of: message, maximumLength: size)
                switch Int.random(in: 0...9, using: &generator) {
                case 0 where stream.count > 1: stream.remove(at: Int.random(in: 0..<stream.count, using: &generator))
                case 1: stream.insert(stream[0], at: Int.random(in: 0...stream.count, using: &generator))
                case 2 where stream.count > 1: stream.swapAt(0, stream.count - 1)
                case 3:
                    let index = Int.random(in: 0..<stream.count, using: &generator)
                    stream[index][0] ^= 1 << UInt8.random(in: 0...7, using: &generator)
                case 4:
                    let index = Int.random(in: 0..<stream.count, using: &generator)
                    stream[index] = Array(stream[index].prefix(Int.random(in: 0...3, using: &generator)))
                case 5:
                    stream.insert(
                        (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                            UInt8.random(in: 0...255, using: &generator)
                        },
                        at: Int.random(in: 0...stream.count, using: &generator)
                    )
                default: break
                }
            }
            let fragment = stream.removeFirst()
            let expected = model.feed(fragment)
            let actual: FragmentModel.Outcome
            do {
                actual = try reassembler.append(fragment).map { .complete($0) } ?? .incomplete
            } catch {
                actual = .failure(error.code)
            }
            #expect(actual == expected, "fragment \(fragment.prefix(4))…")
            if actual != expected { break }
            switch actual {
            case .incomplete: outcomes["incomplete", default: 0] += 1
            case .complete: outcomes["complete", default: 0] += 1
            case .failure(let code): outcomes["\(code)", default: 0] += 1
            }
            #expect(reassembler.isInProgress == (model.message != nil))
        }
        for key in [
            "incomplete", "complete", "fragmentWithoutStart", "fragmentOutOfSequence", "lengthMismatch",
            "messageTooLong",
        ] {
            #expect(outcomes[key, default: 0] > 50, "\(key): \(outcomes)")
        }
    }
}
