import Testing
@testable import ReactorHubJSON

/// The editor copies a container the original document shares once, on its first change,
/// and changes its copy in place after: counted by the storage address of the container
/// across the operations of one patch. A change that moves the storage has copied it,
/// unless it grew a container that had no room left (a reallocation, amortized).
@Suite struct DocumentEditorOwnershipTests {
    static let length = 30_000

    static func document() -> JSONValue {
        ["nested": ["deeper": ["a": .array((0..<length).map { .int($0) })]], "members": .object(JSONObject((0..<length).map { ("m\($0)", .int($0)) }))]
    }

    @Test func appendsToASharedArrayCopyItOnceForTheWholePatch() throws {
        let original = Self.document()
        let copies = try countCopies(of: "/nested/deeper/a", in: original, operations: 100) { .add(path: "/nested/deeper/a/-", value: .int($0)) }
        #expect(copies == 1)
        #expect(original[pointer: "/nested/deeper/a"]?.arrayValue?.count == Self.length)
    }

    @Test func insertionsAtTheFrontCopyItOnceToo() throws {
        let copies = try countCopies(of: "/nested/deeper/a", in: Self.document(), operations: 50) { .add(path: "/nested/deeper/a/0", value: .int($0)) }
        #expect(copies == 1)
    }

    @Test func replacingElementsChangesTheCopyInPlace() throws {
        let copies = try countCopies(of: "/nested/deeper/a", in: Self.document(), operations: 100) { .replace(path: JSONPointer(tokens: ["nested", "deeper", "a", String($0 * 7)]), value: "x") }
        #expect(copies == 1)
    }

    @Test func memberSetsInALargeObjectCopyItOnce() throws {
        let copies = try countCopies(of: "/members", in: Self.document(), operations: 100) { .add(path: JSONPointer(tokens: ["members", "m\($0 * 3)"]), value: "x") }
        #expect(copies == 1)
    }

    @Test func theContainersOnThePathAreCopiedOnceToo() throws {
        let copies = try countCopies(of: "/nested/deeper", in: Self.document(), operations: 100) { .add(path: "/nested/deeper/a/-", value: .int($0)) }
        #expect(copies == 1)
    }

    /// Performs `operations` operations on `document` (which stays shared with the
    /// caller) and counts those after which the container at `pointer` lives in another
    /// storage although it had room: the copies.
    func countCopies(
        of pointer: JSONPointer, in document: JSONValue, operations: Int, _ operation: (Int) -> PatchOperation
    ) throws -> Int {
        var editor = DocumentEditor(document: document)
        var copies = 0
        var before = try #require(editor.document[pointer: pointer]).storage
        for index in 0..<operations {
            try editor.perform(operation(index))
            let after = try #require(editor.document[pointer: pointer]).storage
            let grew = after.count > before.count
            if after.address != before.address && (index == 0 || !grew || before.hadRoom) { copies += 1 }
            before = after
        }
        return copies
    }
}

extension JSONValue {
    /// The container's storage address, its count, and whether it had room for one more.
    var storage: (address: UInt, count: Int, hadRoom: Bool) {
        switch self {
        case .array(let elements):
            (elements.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }, elements.count, elements.capacity > elements.count)
        case .object(let object):
            (object.storageAddress, object.count, object.entries.capacity > object.count)
        default:
            (0, 0, false)
        }
    }
}
