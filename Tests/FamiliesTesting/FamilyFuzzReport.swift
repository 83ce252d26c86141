/// What a decoder made of the packets ``FamilyConformance`` fed it.
public struct FamilyFuzzReport: Sendable, Hashable {
    /// Packets decoded without an error.
    public var decoded = 0
    /// Packets rejected with the family's error.
    public var rejected = 0
    /// Values emitted in all.
    public var values = 0
}
