#if canImport(Glibc)
import Glibc
#endif
@testable import ReactorHubWebSocketServer

/// A web root made once per fuzzing process, in a fresh folder under `TMPDIR` (names as
/// Swift literals):
///
/// ```
/// outside/secret.txt          the file nothing may reach
/// root/index.html, app.js, style.css, docs/index.html, docs/guide.md
/// root/.env, root/.git/config, root/docs/.hidden
/// root/.\u{301}accent                a dotfile whose first Character is ".\u{301}", not "."
/// root/back\\\u{301}slash            a backslash that is no Character "\\" either
/// root/escape.txt   -> ../outside/secret.txt     (a symlink pointing outside)
/// root/outside-dir  -> ../outside                (a symlinked folder pointing outside)
/// root/env-link.txt -> .env                      (a symlink to a dotfile inside)
/// root/docs/up      -> ..                        (a symlink back to the root)
/// ```
struct WebRoot: Sendable {
    let resolver: StaticFileResolver
    /// The canonical path of the folder outside the root.
    let outside: String

    static let shared = WebRoot()

    private init() {
        let temporary = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((temporary + "/reactorhub-fuzz-static-XXXXXX").utf8CString)
        guard let base = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }).map({ String(cString: $0) }) else {
            fatalError("mkdtemp failed")
        }
        let root = base + "/root"
        for folder in ["/outside", "/root", "/root/docs", "/root/.git"] {
            mkdir(base + folder, 0o755)
        }
        let files = [
            "/outside/secret.txt", "/root/index.html", "/root/app.js", "/root/style.css", "/root/docs/index.html",
            "/root/docs/guide.md", "/root/.env", "/root/.git/config", "/root/docs/.hidden",
            "/root/.\u{301}accent", "/root/back\\\u{301}slash",
        ]
        for file in files {
            let descriptor = open(base + file, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
            _ = write(descriptor, "x\n", 2)
            close(descriptor)
        }
        symlink("../outside/secret.txt", root + "/escape.txt")
        symlink("../outside", root + "/outside-dir")
        symlink(".env", root + "/env-link.txt")
        symlink("..", root + "/docs/up")
        guard let resolver = StaticFileResolver(webRoot: root), let outside = StaticFileResolver.canonicalPath(base + "/outside") else {
            fatalError("cannot make the web root under \(base)")
        }
        self.resolver = resolver
        self.outside = outside
    }
}
