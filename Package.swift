// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "ReactorHub",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "reactorhub", targets: ["reactorhub"]),
        .executable(name: "reactorhub-bench", targets: ["reactorhub-bench"]),
        .library(name: "Reactor", targets: ["Reactor"]),
        .library(name: "ReactorTesting", targets: ["ReactorTesting"]),
        .library(name: "ReactorHubServer", targets: ["ReactorHubServer"]),
        .library(name: "ReactorHubClient", targets: ["ReactorHubClient"]),
        .executable(name: "reactorhub-cli", targets: ["reactorhub-cli"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // No pkgConfig: hiredis.pc's cflags carry -D_FILE_OFFSET_BITS=64, which SwiftPM
        // refuses with a warning (the build must print none); the header is found under
        // /usr/include and the module map links libhiredis.
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
        .target(name: "CReceiveTap"),
        .target(name: "CSignalPipe"),
        .target(name: "Locking", swiftSettings: strict),
        .target(name: "Logging", dependencies: ["Locking"], swiftSettings: strict),
        .target(name: "Lifecycle", dependencies: ["Logging"], swiftSettings: strict),
        .target(name: "Metrics", swiftSettings: strict),
        .target(name: "Transport", dependencies: ["CLibWebSockets", "CReceiveTap", "Lifecycle", "Locking", "Logging"], swiftSettings: strict),
        .target(name: "Reactor", dependencies: ["Locking", "Logging"], swiftSettings: strict),
        .target(name: "ReactorTesting", dependencies: ["Reactor", "Locking"], swiftSettings: strict),
        .target(name: "JSON", swiftSettings: strict),
        .target(name: "Auth", dependencies: ["CCrypto", "JSON", "Locking"], swiftSettings: strict),
        .target(name: "Hub", dependencies: ["Reactor", "JSON", "Transport", "Auth", "Cluster", "Lifecycle", "Locking", "Logging", "Metrics"], swiftSettings: strict),
        .target(name: "Reactors", dependencies: ["Reactor", "JSON"], swiftSettings: strict),
        .target(name: "Cluster", dependencies: ["CHiredis", "Locking", "Logging"], swiftSettings: strict),
        .target(name: "Persistence", dependencies: ["CSQLite", "Hub", "JSON", "Lifecycle", "Locking", "Logging", "Metrics"], swiftSettings: strict),
        .target(name: "Daemon", dependencies: ["Hub", "Reactors", "Persistence", "JSON", "Auth", "Cluster", "Lifecycle", "Logging", "Metrics", "Transport", "CSignalPipe"], swiftSettings: strict),
        .target(name: "ReactorHubServer", dependencies: ["Daemon", "Hub", "Reactor", "JSON"], swiftSettings: strict),
        .executableTarget(name: "reactorhub", dependencies: ["ReactorHubServer"], swiftSettings: strict),
        .target(
            name: "ReactorHubClient",
            dependencies: [
                "JSON", "Reactor", "Locking", "Logging",
                .target(name: "Transport", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "reactorhub-cli", dependencies: ["ReactorHubClient", "JSON", "Locking", "Logging", "CSignalPipe"], swiftSettings: strict),

        .systemLibrary(name: "CBenchSys", path: "Sources/reactorhub-bench/CBenchSys"),
        // libssl, for the load generator's wss:// client only (the daemon's TLS is lws').
        .systemLibrary(
            name: "CBenchSSL", path: "Sources/reactorhub-bench/CBenchSSL", pkgConfig: "libssl", providers: [.apt(["libssl-dev"])]
        ),
        .executableTarget(
            name: "reactorhub-bench", dependencies: ["CBenchSys", "CBenchSSL"], exclude: ["CBenchSys", "CBenchSSL"],
            swiftSettings: strict
        ),
        .executableTarget(name: "json-bench", dependencies: ["JSON"], swiftSettings: strict),
        .executableTarget(name: "reactor-bench", dependencies: ["Reactor"], swiftSettings: strict),
        .executableTarget(name: "auth-bench", dependencies: ["Auth"], swiftSettings: strict),
        .executableTarget(name: "client-bench", dependencies: ["ReactorHubClient", "JSON", "Logging"], swiftSettings: strict),

        .target(name: "TestSupport", dependencies: ["Transport", "Locking"], path: "Tests/TestSupport", swiftSettings: strict),
        .target(name: "JSONTestSupport", dependencies: ["JSON"], path: "Tests/JSONTestSupport", swiftSettings: strict),
        // Random document pairs and their diffs as JSON lines, for the differential check
        // against Python's jsonpatch (scripts/fuzz.sh, Fuzz/README.md).
        .executableTarget(name: "jsonpatch-pairs", dependencies: ["JSON", "JSONTestSupport"], path: "Fuzz/jsonpatch-pairs", swiftSettings: strict),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "TestSupport", "Locking", "Logging"], exclude: ["Peers"], swiftSettings: strict),
        .testTarget(
            name: "ReactorHubClientTests",
            dependencies: ["ReactorHubClient", "Reactors", "Reactor", "JSON", "Locking", "Logging", "TestSupport"],
            exclude: ["Peers"],
            swiftSettings: strict
        ),
        .testTarget(name: "ReactorTests", dependencies: ["Reactor", "ReactorTesting", "Locking"], swiftSettings: strict),
        .testTarget(name: "HubTests", dependencies: ["Hub", "Reactors", "Reactor", "JSON", "Transport", "TestSupport", "Cluster", "Metrics", "Locking", "Logging", "Auth"], swiftSettings: strict),
        .testTarget(name: "ReactorsTests", dependencies: ["Reactors", "Reactor", "ReactorTesting", "JSON"], swiftSettings: strict),
        .testTarget(name: "DaemonTests", dependencies: ["Daemon", "JSON", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ClusterTests", dependencies: ["Cluster", "Locking", "Logging", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "AuthTests", dependencies: ["Auth", "JSON"], exclude: ["Vectors"], swiftSettings: strict),
        .testTarget(name: "PersistenceTests", dependencies: ["Persistence", "Hub", "JSON", "Logging"], swiftSettings: strict),
        .testTarget(
            name: "JSONTests",
            dependencies: ["JSON", "JSONTestSupport"],
            exclude: ["check_with_jsonpatch.py"],
            resources: [.copy("Resources/json-patch-tests")],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzz targets (Fuzz/README.md), one executable per target, declared only when
// REACTORHUB_FUZZ is set: a plain `swift build` never builds them. scripts/fuzz.sh sets it
// and builds them with libFuzzer and the address sanitizer in .build/fuzz.
if Context.environment["REACTORHUB_FUZZ"] != nil {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("json-parser", ["JSON"]),
        ("client-message", ["Hub", "JSON"]),
        ("action-decoder", ["JSON", "Reactors"]),
        ("json-pointer", ["JSON"]),
        ("patch-apply", ["JSON"]),
        ("static-path", ["Transport"]),
        ("token", ["Auth"]),
    ]
    package.targets.append(.target(name: "FuzzSupport", path: "Fuzz/Support", swiftSettings: strict))
    for target in fuzzTargets {
        package.targets.append(.executableTarget(
            name: "fuzz-\(target.name)", dependencies: ["FuzzSupport"] + target.dependencies, path: "Fuzz/\(target.name)", swiftSettings: strict
        ))
    }
    // Only the fuzz targets and what they depend on, so `swift build` builds just those.
    var needed: Set<String> = []
    var pending = fuzzTargets.map { "fuzz-\($0.name)" }
    while let name = pending.popLast() {
        guard needed.insert(name).inserted, let target = package.targets.first(where: { $0.name == name }) else { continue }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): pending.append(name)
            default: break
            }
        }
    }
    package.targets.removeAll { !needed.contains($0.name) }
    package.products = fuzzTargets.map { .executable(name: "fuzz-\($0.name)", targets: ["fuzz-\($0.name)"]) }
}
