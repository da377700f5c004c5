#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Maps a request path to a file under the web root, refusing anything that would escape
/// it: `..` segments, percent-encoded traversal, NUL bytes, backslashes, and symbolic
/// links that lead outside the root.
struct StaticFileResolver: Sendable {
    /// A file to serve.
    struct Resolved: Equatable {
        /// The absolute path on disk.
        var path: String
        /// The `Content-Type` to send.
        var contentType: String
    }

    /// The canonical absolute path of the web root.
    let root: String

    /// Creates a resolver for `webRoot`; `nil` when the folder does not exist.
    init?(webRoot: String) {
        guard let canonical = Self.canonicalPath(webRoot), Self.isDirectory(canonical) else { return nil }
        self.root = canonical
    }

    /// The file for `requestPath` (the path part of the URL, query removed), or `nil`.
    func resolve(_ requestPath: String) -> Resolved? {
        guard let decoded = requestPath.removingPercentEncoding, decoded.hasPrefix("/") else { return nil }
        var segments: [Substring] = []
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            if segment == "." || segment == ".." || segment.contains("\\") || segment.contains("\0") {
                return nil
            }
            if segment.hasPrefix(".") { return nil }  // no dotfiles (.git, .env)
            segments.append(segment)
        }
        var candidate = root
        for segment in segments {
            candidate += "/" + segment
        }
        if Self.isDirectory(candidate) {
            candidate += "/index.html"
        }
        guard let canonical = Self.canonicalPath(candidate),
              canonical == root || canonical.hasPrefix(root + "/"),
              Self.isRegularFile(canonical)
        else { return nil }
        return Resolved(path: canonical, contentType: ContentType.forPath(canonical))
    }

    static func canonicalPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
