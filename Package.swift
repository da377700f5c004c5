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
        .library(name: "Hub", targets: ["Hub"]),
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
        .target(name: "Locking", swiftSettings: strict),
        .target(name: "Logging", dependencies: ["Locking"], swiftSettings: strict),
        .target(name: "Lifecycle", dependencies: ["Logging"], swiftSettings: strict),
        .target(name: "Metrics", swiftSettings: strict),
        .target(name: "Transport", dependencies: ["CLibWebSockets", "Lifecycle", "Locking", "Logging"], swiftSettings: strict),
        .target(name: "Reactor", dependencies: ["Locking", "Logging"], swiftSettings: strict),
        .target(name: "ReactorTesting", dependencies: ["Reactor", "Locking"], swiftSettings: strict),
        .target(name: "JSON", swiftSettings: strict),
        .target(name: "Auth", dependencies: ["CCrypto", "JSON", "Locking"], swiftSettings: strict),
        .target(name: "Hub", dependencies: ["Reactor", "JSON", "Transport", "Auth", "Cluster", "Lifecycle", "Locking", "Logging", "Metrics"], swiftSettings: strict),
        .target(name: "Reactors", dependencies: ["Reactor", "JSON"], swiftSettings: strict),
        .target(name: "Cluster", dependencies: ["CHiredis", "Locking", "Logging"], swiftSettings: strict),
        .target(name: "Persistence", dependencies: ["CSQLite", "Hub", "JSON", "Lifecycle", "Locking", "Logging", "Metrics"], swiftSettings: strict),
        .target(name: "Daemon", dependencies: ["Hub", "Reactors", "Persistence", "JSON", "Auth", "Cluster", "Lifecycle", "Logging", "Metrics", "Transport"], swiftSettings: strict),
        .executableTarget(name: "reactorhub", dependencies: ["Daemon"], swiftSettings: strict),

        .systemLibrary(name: "CBenchSys", path: "Sources/reactorhub-bench/CBenchSys"),
        .executableTarget(
            name: "reactorhub-bench", dependencies: ["CBenchSys"], exclude: ["CBenchSys"], swiftSettings: strict
        ),
        .executableTarget(name: "json-bench", dependencies: ["JSON"], swiftSettings: strict),
        .executableTarget(name: "reactor-bench", dependencies: ["Reactor"], swiftSettings: strict),

        .target(name: "TestSupport", dependencies: ["Transport", "Locking"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "TestSupport", "Locking", "Logging"], swiftSettings: strict),
        .testTarget(name: "ReactorTests", dependencies: ["Reactor", "ReactorTesting", "Locking"], swiftSettings: strict),
        .testTarget(name: "HubTests", dependencies: ["Hub", "Reactors", "Reactor", "JSON", "Transport", "TestSupport", "Cluster", "Metrics", "Locking", "Logging"], swiftSettings: strict),
        .testTarget(name: "ReactorsTests", dependencies: ["Reactors", "Reactor", "ReactorTesting", "JSON"], swiftSettings: strict),
        .testTarget(name: "DaemonTests", dependencies: ["Daemon", "JSON", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ClusterTests", dependencies: ["Cluster", "Locking", "Logging", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "AuthTests", dependencies: ["Auth", "JSON"], exclude: ["Vectors"], swiftSettings: strict),
        .testTarget(name: "PersistenceTests", dependencies: ["Persistence", "Hub", "JSON", "Logging"], swiftSettings: strict),
        .testTarget(
            name: "JSONTests",
            dependencies: ["JSON"],
            exclude: ["check_with_jsonpatch.py"],
            resources: [.copy("Resources/json-patch-tests")],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
