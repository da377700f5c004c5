/// The coding key of an array element, whose decimal text is only made when asked for
/// (coding paths are read on errors; most elements never need it).
struct ArrayIndexKey: CodingKey {
    let index: Int

    init(_ index: Int) {
        self.index = index
    }

    init?(stringValue: String) {
        guard let index = Int(stringValue) else { return nil }
        self.index = index
    }

    init?(intValue: Int) {
        index = intValue
    }

    var stringValue: String { String(index) }
    var intValue: Int? { index }
}
