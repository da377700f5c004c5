#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Maps a request path to a file under the web root, refusing anything that would escape
/// it: `..` segments, percent-encoded traversal, NUL bytes, backslashes, and symbolic
/// links that lead outside the root; and dotfiles, whether requested or reached through a
/// symbolic link.
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
        guard let decoded = requestPath.removingPercentEncoding, decoded.utf8.first == UInt8(ascii: "/") else { return nil }
        // Bytes, not Characters: a combining mark after '.' or '\\' makes a Character that
        // `hasPrefix(".")` and `contains("\\")` do not see, and the file system sees bytes.
        var candidate = root
        for segment in decoded.utf8.split(separator: UInt8(ascii: "/")) {
            // `.`, `..` and dotfiles (.git, .env) all start with a dot.
            if segment.first == UInt8(ascii: ".") || segment.contains(UInt8(ascii: "\\")) || segment.contains(0) {
                return nil
            }
            candidate += "/" + String(decoding: segment, as: UTF8.self)
        }
        if Self.isDirectory(candidate) {
            candidate += "/index.html"
        }
        guard let canonical = Self.canonicalPath(candidate),
              let inside = Self.components(of: canonical, under: root),
              !inside.contains(where: { $0.first == UInt8(ascii: ".") }),
              Self.isRegularFile(canonical)
        else { return nil }
        return Resolved(path: canonical, contentType: ContentType.forPath(canonical))
    }

    /// The components of `path` below `root`, as bytes; `nil` when `path` is not strictly
    /// under `root`.
    ///
    /// Checked on the canonical path, after symbolic links: a link inside the root can
    /// name a dotfile (`config -> .git/config`) that the request never spelled.
    static func components(of path: String, under root: String) -> [ArraySlice<UInt8>]? {
        let bytes = Array(path.utf8)
        let prefix = Array(root.utf8) + (root.hasSuffix("/") ? [] : [UInt8(ascii: "/")])
        guard bytes.count > prefix.count, bytes.starts(with: prefix) else { return nil }
        return bytes[prefix.count...].split(separator: UInt8(ascii: "/"))
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
