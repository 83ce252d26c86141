/// A gesture the tag's inference engine recognised: the `event` of a
/// DataChannel notification's `inference_data` (extension 917).
///
/// Known ids have a case; any other id is kept as ``unknown(_:)``. Build
/// values from the wire with ``init(id:)``, which never produces `unknown`
/// for a known id. Its `Codable` form is the case name (`"doubleTap"`), or the
/// integer id for an unknown gesture.
///
/// ```swift
/// print(JacquardGesture(id: 1))       // doubleTap
/// print(JacquardGesture(id: 42))      // unknown(42)
/// print(JacquardGesture.brushOut.id)  // 3
/// ```
public enum JacquardGesture: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Id 0: no gesture recognised.
    case noInference
    /// Id 1: a double tap.
    case doubleTap
    /// Id 2: a brush towards the body.
    case brushIn
    /// Id 3: a brush away from the body.
    case brushOut
    /// Id 7: the tag covered briefly with the palm.
    case shortCover
    /// Id 13: a brush upwards.
    case brushUp
    /// Id 14: a brush downwards.
    case brushDown
    /// Any other id, kept as sent.
    case unknown(Int32)

    /// Every named gesture, in id order.
    public static let known: [JacquardGesture] = [
        .noInference, .doubleTap, .brushIn, .brushOut, .shortCover, .brushUp, .brushDown,
    ]

    /// Creates the gesture for a wire id.
    ///
    /// - Parameter id: The `event` field of `inference_data`.
    @inlinable
    public init(id: Int32) {
        switch id {
        case 0: self = .noInference
        case 1: self = .doubleTap
        case 2: self = .brushIn
        case 3: self = .brushOut
        case 7: self = .shortCover
        case 13: self = .brushUp
        case 14: self = .brushDown
        default: self = .unknown(id)
        }
    }

    /// The wire id.
    @inlinable
    public var id: Int32 {
        switch self {
        case .noInference: 0
        case .doubleTap: 1
        case .brushIn: 2
        case .brushOut: 3
        case .shortCover: 7
        case .brushUp: 13
        case .brushDown: 14
        case .unknown(let id): id
        }
    }

    /// The lower-camel-case name, or `nil` for ``unknown(_:)``.
    public var name: String? {
        switch self {
        case .noInference: "noInference"
        case .doubleTap: "doubleTap"
        case .brushIn: "brushIn"
        case .brushOut: "brushOut"
        case .shortCover: "shortCover"
        case .brushUp: "brushUp"
        case .brushDown: "brushDown"
        case .unknown: nil
        }
    }

    /// The name, or `unknown(<id>)`.
    public var description: String { name ?? "unknown(\(id))" }

    /// Encodes the name, or the integer id for an unknown gesture.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try JacquardEnumCoding.encode(name: name, id: id, to: encoder)
    }

    /// Decodes a name or an integer id.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` for a name that is not a gesture's.
    public init(from decoder: any Decoder) throws {
        let names = Self.known.map { (name: $0.name ?? "", id: $0.id) }
        self.init(id: try JacquardEnumCoding.decodeID(from: decoder, names: names))
    }
}
