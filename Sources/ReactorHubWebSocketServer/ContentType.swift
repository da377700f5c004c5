/// `Content-Type` values for the files a web root holds.
enum ContentType {
    private static let byExtension: [String: String] = [
        "html": "text/html; charset=utf-8",
        "htm": "text/html; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "json": "application/json",
        "map": "application/json",
        "txt": "text/plain; charset=utf-8",
        "md": "text/markdown; charset=utf-8",
        "svg": "image/svg+xml",
        "png": "image/png",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
        "webp": "image/webp",
        "ico": "image/x-icon",
        "woff": "font/woff",
        "woff2": "font/woff2",
        "wasm": "application/wasm",
        "webmanifest": "application/manifest+json",
    ]

    /// The type for `path`, by its extension; unknown extensions are binary.
    static func forPath(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else {
            return "application/octet-stream"
        }
        let ext = path[path.index(after: dot)...].lowercased()
        return byExtension[ext] ?? "application/octet-stream"
    }
}
