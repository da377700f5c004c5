import ReactorHubDaemon

/// A few files and folders in memory, for loading configurations without touching the
/// disk: the folders that hold a file exist too.
struct VirtualDisk {
    var files: [String: String] = [:]
    var folders: Set<String> = []

    /// An installation under /opt/rh (`make install PREFIX=/opt/rh`) and nothing else.
    static let installed = VirtualDisk(
        files: [
            "/opt/rh/bin/reactorhub": "",
            "/opt/rh/share/reactorhub/config/weather.json": "{}",
            "/opt/rh/share/reactorhub/web/index.html": "<html>",
        ]
    )

    /// The disk with one more file.
    func adding(_ path: String, _ contents: String = "") -> VirtualDisk {
        var disk = self
        disk.files[path] = contents
        return disk
    }

    /// The disk with one more (empty) folder.
    func addingFolder(_ path: String) -> VirtualDisk {
        var disk = self
        disk.folders.insert(path)
        return disk
    }

    /// A context on this disk, the executable installed under /opt/rh.
    func context(environment: [String: String] = [:], workingDirectory: String = "/home/me") -> ConfigurationContext {
        let files = self.files
        let folders = self.folders
        return ConfigurationContext(
            environment: environment,
            workingDirectory: workingDirectory,
            executablePath: "/opt/rh/bin/reactorhub",
            readFile: { path in files[path].map { Array($0.utf8) } },
            itemKind: { path in
                if files[path] != nil { return .file }
                let inside = path == "/" ? "/" : path + "/"
                if folders.contains(path) || files.keys.contains(where: { $0.hasPrefix(inside) })
                    || folders.contains(where: { $0.hasPrefix(inside) }) {
                    return .folder
                }
                return nil
            }
        )
    }

    /// The effective configuration of `arguments` on this disk.
    func load(
        _ arguments: [String] = [],
        environment: [String: String] = [:],
        workingDirectory: String = "/home/me"
    ) throws(ConfigurationError) -> Configuration {
        try CommandLineOptions(arguments: arguments)
            .effectiveConfiguration(context: context(environment: environment, workingDirectory: workingDirectory))
    }

    /// The refusal of `arguments` on this disk, nil when they are accepted.
    func refusal(_ arguments: [String] = [], environment: [String: String] = [:]) -> String? {
        do {
            _ = try load(arguments, environment: environment)
            return nil
        } catch {
            return error.message
        }
    }
}
