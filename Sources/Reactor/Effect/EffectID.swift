/// The identifier of a cancellable effect, erased so that any hashable, sendable value can be one.
@usableFromInline
struct EffectID: Hashable, Sendable {
    private let base: any Hashable & Sendable

    init(_ base: some Hashable & Sendable) {
        self.base = base
    }

    @usableFromInline
    static func == (lhs: EffectID, rhs: EffectID) -> Bool {
        func isEqual<Base: Hashable>(_ base: Base, _ other: any Hashable) -> Bool {
            (other as? Base) == base
        }
        return isEqual(lhs.base, rhs.base)
    }

    @usableFromInline
    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type(of: base)))
        hasher.combine(base)
    }
}
