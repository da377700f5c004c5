/// A value that holds its JSON form already, so that code which would encode it member by
/// member (`JSONValueEncoder` through `Encodable`) can take that form as it is.
///
/// The two must agree: `jsonValue` is exactly what encoding the value gives. The hub uses
/// it for reactor states such as the doc kind's, whose state is a JSON document: a change
/// then costs no encoding of the whole document, and unchanged subtrees keep their
/// storage, which the differ recognises in O(1).
public protocol JSONValueRepresentable {
    /// The value's JSON, as encoding it would give.
    var jsonValue: JSONValue { get }
}
