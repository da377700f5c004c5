import Testing
import ReactorHubJSON
import JSONTestSupport

/// `JSONPatch.apply(_:to:byteCount:within:)` against the plain apply, over random
/// documents and random patches of every operation: the same result or the same error,
/// the size it keeps equal to the size measured, the patch it reports giving the same text
/// and empty exactly when the text did not change, and its limits never let a result past them.
@Suite struct BoundedPatchPropertyTests {
    static let unbounded = DocumentLimits(maxBytes: 1 << 40, maxDepth: 10_000, maxElements: .max, maxOperations: .max)

    @Test func agreesWithThePlainApplyAndKeepsTheSizeAndThePatch() throws {
        var patches = RandomPatches(seed: 0x5EED_B0DE)
        var counts = (applied: 0, failed: 0, reported: 0, unchanged: 0, diffed: 0)
        for _ in 0..<6_000 {
            let document = patches.documents.value()
            let operations = patches.operations(for: document)
            let plain = Result { () throws(JSONPatchError) in try JSONPatch.apply(operations, to: document) }
            let bounded = Result { () throws(JSONPatchError) in
                try JSONPatch.apply(operations, to: document, byteCount: document.serializedByteCount(), within: Self.unbounded)
            }
            switch (plain, bounded) {
            case (.success(let expected), .success(let result)):
                counts.applied += 1
                #expect(result.document.serialized() == expected.serialized(), "\(operations) on \(document)")
                #expect(result.byteCount == expected.serializedByteCount(), "\(operations) on \(document)")
                guard let patch = result.patch else {
                    counts.diffed += 1
                    continue
                }
                counts.reported += 1
                let patched = try JSONPatch.apply(patch, to: document)
                #expect(patched.serialized() == expected.serialized(), "\(patch) for \(operations) on \(document)")
                let unchanged = document.serialized() == expected.serialized()
                #expect(patch.isEmpty == unchanged, "\(patch) for \(operations) on \(document)")
                if unchanged { counts.unchanged += 1 }
            case (.failure(let expected), .failure(let error)):
                counts.failed += 1
                #expect(error.code == expected.code)
                #expect(error.operationIndex == expected.operationIndex)
            default:
                Issue.record("plain \(plain), bounded \(bounded): \(operations) on \(document)")
            }
        }
        // Every outcome must be exercised, or the property proves little.
        #expect(counts.applied > 2_000)
        #expect(counts.failed > 1_000)
        #expect(counts.reported > 1_000)
        #expect(counts.unchanged > 50)
        #expect(counts.diffed > 200)
    }

    @Test func noResultPassesItsLimits() throws {
        var patches = RandomPatches(seed: 0x5EED_B0DF)
        var refused = 0
        var kept = 0
        for _ in 0..<6_000 {
            let document = patches.documents.value()
            let limits = DocumentLimits(
                maxBytes: document.serializedByteCount() + patches.documents.integer(in: 0...40),
                maxDepth: max(document.depth(), 1) + patches.documents.integer(in: 0...1),
                maxElements: patches.documents.integer(in: 5...9),
                maxOperations: patches.documents.integer(in: 3...5)
            )
            let operations = patches.operations(for: document)
            guard let expected = try? JSONPatch.apply(operations, to: document) else { continue }
            let fits = expected.depth(limit: 10_000) <= limits.maxDepth && expected.serializedByteCount() <= limits.maxBytes
                && operations.count <= limits.maxOperations
            do {
                let result = try JSONPatch.apply(operations, to: document, byteCount: document.serializedByteCount(), within: limits)
                #expect(result.document.depth(limit: 10_000) <= limits.maxDepth)
                #expect(result.byteCount <= limits.maxBytes)
                kept += 1
            } catch {
                #expect([.tooDeep, .tooLarge, .tooManyElements, .tooManyOperations].contains(error.code), "\(error)")
                if error.code == .tooManyOperations {
                    #expect(operations.count > limits.maxOperations)
                }
                refused += 1
                if error.code == .tooLarge && error.operationIndex == nil {
                    #expect(!fits)
                }
            }
            if !fits {
                #expect(throws: JSONPatchError.self) {
                    try JSONPatch.apply(operations, to: document, byteCount: document.serializedByteCount(), within: limits)
                }
            }
        }
        #expect(refused > 500)
        #expect(kept > 500)
    }
}

/// Random RFC 6902 patches for a document: paths that exist, paths one level below those
/// (for `add`), `-`, indexes past the end, and paths that do not exist; every operation.
struct RandomPatches {
    var documents: RandomDocuments

    init(seed: UInt64) {
        documents = RandomDocuments(seed: seed)
    }

    mutating func operations(for document: JSONValue) -> [PatchOperation] {
        var pointers = document.pointers()
        var operations: [PatchOperation] = []
        for _ in 0..<documents.integer(in: 1...5) {
            let existing = documents.pick(pointers)
            let target = documents.chance(0.5) ? existing : documents.pick(pointers).appending(documents.pick(["-", "0", "1", "7", "a", "zz"]))
            let value = documents.chance(0.3) ? documents.scalar() : documents.value(depth: 3)
            switch documents.integer(in: 0...5) {
            case 0: operations.append(.add(path: target, value: value))
            case 1: operations.append(.remove(path: existing))
            case 2: operations.append(.replace(path: existing, value: documents.chance(0.2) ? document[pointer: existing] ?? value : value))
            case 3: operations.append(.move(from: documents.pick(pointers), path: target))
            case 4: operations.append(.copy(from: existing, path: target))
            default: operations.append(.test(path: existing, value: document[pointer: existing] ?? value))
            }
            pointers.append(target)
        }
        return operations
    }
}

extension JSONValue {
    /// Every location in the value, the root first.
    func pointers(at base: JSONPointer = .root) -> [JSONPointer] {
        switch self {
        case .array(let elements):
            [base] + elements.indices.flatMap { elements[$0].pointers(at: base.appending(index: $0)) }
        case .object(let object):
            [base] + object.flatMap { $0.value.pointers(at: base.appending($0.key)) }
        default:
            [base]
        }
    }
}
