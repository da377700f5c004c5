import ReactorHubProtocol
@testable import ReactorHubEngine

enum PatchFrameFactory {
    /// A patch frame of `version` whose operations are `operations` (a JSON array).
    static func make(_ version: Int, _ operations: String = "[]", address: String = "doc/x") -> PatchFrame {
        PatchFrame(address: address, version: version, base: version - 1, operations: Array(operations.utf8))
    }
}
