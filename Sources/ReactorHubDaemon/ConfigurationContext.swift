import Foundation

/// What loading the configuration reads from the process and the disk: the environment,
/// the working directory, where the executable is, files and folders. `live` reads the
/// real ones; tests build one over a few files in memory.
public struct ConfigurationContext: Sendable {
    /// What a path names on disk.
    public enum ItemKind: Sendable, Equatable {
        /// A regular file (or a link to one).
        case file
        /// A folder (or a link to one).
        case folder
    }

    /// The process's environment.
    public var environment: [String: String]
    /// The absolute working directory.
    public var workingDirectory: String
    /// The running executable's absolute path; its `../share/reactorhub/` holds what
    /// `make install` installed.
    public var executablePath: String?
    /// A file's bytes, or nil when it cannot be read.
    public var readFile: @Sendable (String) -> [UInt8]?
    /// What an absolute path names, or nil when nothing is there.
    public var itemKind: @Sendable (String) -> ItemKind?

    /// A context from its parts.
    public init(
        environment: [String: String],
        workingDirectory: String,
        executablePath: String?,
        readFile: @escaping @Sendable (String) -> [UInt8]?,
        itemKind: @escaping @Sendable (String) -> ItemKind?
    ) {
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.executablePath = executablePath
        self.readFile = readFile
        self.itemKind = itemKind
    }

    /// The running process and the real file system.
    public static func live(environment: [String: String]) -> Self {
        Self(
            environment: environment,
            workingDirectory: FileManager.default.currentDirectoryPath,
            executablePath: runningExecutable(),
            // Read to the end rather than by the file's size, so that a pipe works too
            // (`--config <(generate)`, `--config /dev/stdin`).
            readFile: { path in
                guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
                defer { try? handle.close() }
                do { return [UInt8](try handle.readToEnd() ?? Data()) } catch { return nil }
            },
            itemKind: { path in
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return nil }
                return isFolder.boolValue ? .folder : .file
            }
        )
    }

    /// `share/reactorhub` of the installation the executable belongs to
    /// (`PREFIX/bin/reactorhub` → `PREFIX/share/reactorhub`).
    var installedShareDirectory: String? {
        executablePath.map { Paths.resolve("../share/reactorhub", against: Paths.directory(of: $0)) }
    }

    /// `path` made absolute against the working directory.
    func absolute(_ path: String) -> String {
        Paths.resolve(path, against: workingDirectory)
    }

    private static func runningExecutable() -> String? {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return target
        }
        return Bundle.main.executablePath
    }
}
