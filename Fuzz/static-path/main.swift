// static-path: StaticFileResolver (internal to Transport, hence `@testable import`) on any
// request path, against a web root made for the run (see `WebRoot`).
//
// Never crashes. A path it resolves is a regular file strictly under the root, and no
// component of it below the root is a dotfile; a request whose decoded path holds a NUL
// byte or a backslash is refused, as the resolver promises.
import FuzzSupport
import Foundation
@testable import ReactorHubWebSocketServer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStaticPath(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let request = String(decoding: input.bytes, as: UTF8.self)
    let resolver = WebRoot.shared.resolver
    guard let resolved = resolver.resolve(request) else { return 0 }

    let root = resolver.root
    require(resolved.path.hasPrefix(root + "/"), "'\(request)' resolved to \(resolved.path), outside \(root)")
    let below = resolved.path.utf8.dropFirst(root.utf8.count + 1).split(separator: UInt8(ascii: "/"))
    require(!below.contains { $0.first == UInt8(ascii: ".") }, "'\(request)' resolved to the dotfile \(resolved.path)")
    require(!resolved.path.utf8.contains(0), "'\(request)' resolved to a path with a NUL byte")
    require(!resolved.path.hasPrefix(WebRoot.shared.outside), "'\(request)' resolved to \(resolved.path), in the outside folder")
    if let decoded = request.removingPercentEncoding {
        require(!decoded.utf8.contains(0) && !decoded.utf8.contains(UInt8(ascii: "\\")),
                "'\(request)' holds a NUL byte or a backslash and was resolved to \(resolved.path)")
    }
    return 0
}
