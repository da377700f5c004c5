@testable import Hub
import Reactors

/// Reaches the instance's static helpers from tests.
enum ReactorInstanceProbe {
    static func concatenate(_ patches: [[UInt8]]) -> [UInt8] {
        PatchParts.concatenate(patches)
    }
}
