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
        // libuv, the event loop the server's lws context runs on (its `foreign_loops`); lws
        // loads its libuv glue as a plugin (Debian's libwebsockets-evlib-uv).
        .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev", "libwebsockets-evlib-uv"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // No pkgConfig: hiredis.pc's cflags carry -D_FILE_OFFSET_BITS=64, which SwiftPM
        // refuses with a warning (the build must print none); the header is found under
        // /usr/include and the module map links libhiredis.
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
        .target(name: "CReceiveTap"),
        .target(name: "CSignalPipe"),
        .target(name: "CTrapReport"),
        .target(name: "ReactorHubLocking", swiftSettings: strict),
        .target(name: "ReactorHubLogging", dependencies: ["ReactorHubLocking"], swiftSettings: strict),
        .target(name: "ReactorHubLifecycle", dependencies: ["ReactorHubLogging"], swiftSettings: strict),
        .target(name: "ReactorHubMetrics", swiftSettings: strict),
        // permessage-deflate's compressor and decompressor on zlib (its one importer).
        .target(name: "ReactorHubDeflate", dependencies: ["CZlib"], swiftSettings: strict),
        // libwebsockets' one importer: a thin wrapper of the lws calls the server and the client
        // make, on Swift types (no server or client logic inside).
        .target(name: "ReactorHubLibWebSockets", dependencies: ["CLibWebSockets", "CLibUV"], swiftSettings: strict),
        // The WebSocket server (sockets, HTTP, upgrades, event streams), an adapter of the
        // protocol's connection seam on the lws wrapper; no engine inside.
        .target(name: "ReactorHubWebSocketServer", dependencies: ["ReactorHubProtocol", "ReactorHubLibWebSockets", "CReceiveTap", "ReactorHubDeflate", "ReactorHubLifecycle", "ReactorHubLocking", "ReactorHubLogging"], swiftSettings: strict),
        // The WebSocket client, on the lws wrapper: what the Swift client links (no server code).
        .target(name: "ReactorHubWebSocketClient", dependencies: ["ReactorHubProtocol", "ReactorHubLibWebSockets", "ReactorHubLocking", "ReactorHubLogging"], swiftSettings: strict),
        .target(name: "Reactor", dependencies: ["CTrapReport", "ReactorHubLocking", "ReactorHubLogging"], swiftSettings: strict),
        .target(name: "ReactorTesting", dependencies: ["Reactor", "ReactorHubLocking"], swiftSettings: strict),
        .target(name: "ReactorHubJSON", swiftSettings: strict),
        .target(name: "ReactorHubProtocol", dependencies: ["ReactorHubJSON"], swiftSettings: strict),
        .target(name: "ReactorHubStore", dependencies: ["ReactorHubProtocol", "ReactorHubJSON", "ReactorHubLocking", "ReactorHubMetrics"], swiftSettings: strict),
        .target(name: "ReactorHubAuth", dependencies: ["ReactorHubEngine", "ReactorHubProtocol", "CCrypto", "ReactorHubJSON", "ReactorHubLocking"], swiftSettings: strict),
        .target(name: "ReactorHubEngine", dependencies: ["ReactorHubProtocol", "ReactorHubStore", "Reactor", "ReactorHubJSON", "ReactorHubLifecycle", "ReactorHubLocking", "ReactorHubLogging", "ReactorHubMetrics"], swiftSettings: strict),
        .target(name: "ReactorHubKinds", dependencies: ["Reactor", "ReactorHubJSON"], swiftSettings: strict),
        // Webhooks (API.md): the engine's instance events posted with URLSession
        // (FoundationNetworking, on libcurl); signed with the HMAC the daemon hands in.
        .target(
            name: "ReactorHubWebhooks",
            dependencies: ["ReactorHubEngine", "ReactorHubProtocol", "ReactorHubJSON", "ReactorHubLifecycle", "ReactorHubLocking", "ReactorHubLogging", "ReactorHubMetrics"],
            swiftSettings: strict
        ),
        .target(
            name: "ReactorHubRedis",
            dependencies: ["ReactorHubEngine", "ReactorHubProtocol", "Reactor", "ReactorHubJSON", "CHiredis", "ReactorHubLifecycle", "ReactorHubLocking", "ReactorHubLogging", "ReactorHubMetrics"],
            swiftSettings: strict
        ),
        .target(name: "ReactorHubSQLite", dependencies: ["ReactorHubProtocol", "CSQLite", "ReactorHubStore", "ReactorHubJSON", "ReactorHubLifecycle", "ReactorHubLocking", "ReactorHubLogging", "ReactorHubMetrics"], swiftSettings: strict),
        .target(name: "ReactorHubDaemon", dependencies: ["Reactor", "ReactorHubProtocol", "ReactorHubStore", "ReactorHubEngine", "ReactorHubKinds", "ReactorHubSQLite", "ReactorHubJSON", "ReactorHubAuth", "ReactorHubRedis", "ReactorHubLifecycle", "ReactorHubLogging", "ReactorHubMetrics", "ReactorHubWebSocketServer", "ReactorHubWebSocketClient", "ReactorHubWebhooks", "CSignalPipe"], swiftSettings: strict),
        .target(name: "ReactorHubServer", dependencies: ["ReactorHubProtocol", "ReactorHubDaemon", "ReactorHubEngine", "Reactor", "ReactorHubJSON"], swiftSettings: strict),
        .executableTarget(name: "reactorhub", dependencies: ["ReactorHubServer"], swiftSettings: strict),
        .target(
            name: "ReactorHubClient",
            dependencies: [
                "ReactorHubJSON", "ReactorHubProtocol", "Reactor", "ReactorHubLocking", "ReactorHubLogging",
                .target(name: "ReactorHubWebSocketClient", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "reactorhub-cli", dependencies: ["ReactorHubProtocol", "ReactorHubClient", "ReactorHubJSON", "ReactorHubLocking", "ReactorHubLogging", "CSignalPipe"], swiftSettings: strict),

        .systemLibrary(name: "CBenchSys", path: "Sources/reactorhub-bench/CBenchSys"),
        // libssl, for the load generator's wss:// client only (the daemon's TLS is lws').
        .systemLibrary(
            name: "CBenchSSL", path: "Sources/reactorhub-bench/CBenchSSL", pkgConfig: "libssl", providers: [.apt(["libssl-dev"])]
        ),
        .executableTarget(
            name: "reactorhub-bench", dependencies: ["CBenchSys", "CBenchSSL", "ReactorHubDeflate"], exclude: ["CBenchSys", "CBenchSSL"],
            swiftSettings: strict
        ),
        .executableTarget(name: "json-bench", dependencies: ["ReactorHubJSON", "ReactorHubProtocol", "ReactorHubDeflate", "ReactorHubAuth"], swiftSettings: strict),
        .executableTarget(name: "reactor-bench", dependencies: ["Reactor"], swiftSettings: strict),
        .executableTarget(name: "auth-bench", dependencies: ["ReactorHubAuth"], swiftSettings: strict),
        .executableTarget(name: "client-bench", dependencies: ["ReactorHubClient", "ReactorHubJSON", "ReactorHubLogging"], swiftSettings: strict),

        .target(name: "TestSupport", dependencies: ["ReactorHubProtocol", "ReactorHubEngine", "ReactorHubWebSocketServer", "ReactorHubLocking"], path: "Tests/TestSupport", swiftSettings: strict),
        .target(name: "JSONTestSupport", dependencies: ["ReactorHubJSON"], path: "Tests/JSONTestSupport", swiftSettings: strict),
        // Random document pairs and their diffs as JSON lines, for the differential check
        // against Python's jsonpatch (scripts/fuzz.sh, Fuzz/README.md).
        .executableTarget(name: "jsonpatch-pairs", dependencies: ["ReactorHubJSON", "JSONTestSupport"], path: "Fuzz/jsonpatch-pairs", swiftSettings: strict),
        .testTarget(name: "TransportTests", dependencies: ["ReactorHubProtocol", "ReactorHubEngine", "ReactorHubWebSocketServer", "ReactorHubWebSocketClient", "ReactorHubDeflate", "TestSupport", "ReactorHubLocking", "ReactorHubLogging"], exclude: ["Peers"], swiftSettings: strict),
        .testTarget(
            name: "ReactorHubClientTests",
            dependencies: ["ReactorHubClient", "ReactorHubProtocol", "ReactorHubKinds", "Reactor", "ReactorHubJSON", "ReactorHubLocking", "ReactorHubLogging", "TestSupport"],
            exclude: ["Peers"],
            swiftSettings: strict
        ),
        .testTarget(name: "ProtocolTests", dependencies: ["ReactorHubProtocol", "ReactorHubJSON"], swiftSettings: strict),
        .testTarget(name: "ReactorTests", dependencies: ["Reactor", "ReactorTesting", "ReactorHubLocking"], swiftSettings: strict),
        .testTarget(name: "HubTests", dependencies: ["ReactorHubProtocol", "ReactorHubStore", "ReactorHubEngine", "ReactorHubKinds", "Reactor", "ReactorHubJSON", "ReactorHubWebSocketServer", "TestSupport", "ReactorHubRedis", "ReactorHubMetrics", "ReactorHubLocking", "ReactorHubLogging", "ReactorHubAuth"], swiftSettings: strict),
        .testTarget(name: "ReactorsTests", dependencies: ["ReactorHubKinds", "Reactor", "ReactorTesting", "ReactorHubJSON"], swiftSettings: strict),
        .testTarget(name: "DaemonTests", dependencies: ["ReactorHubProtocol", "ReactorHubDaemon", "ReactorHubJSON", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ClusterTests", dependencies: ["ReactorHubRedis", "ReactorHubLocking", "ReactorHubLogging", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "WebhooksTests",
            dependencies: ["ReactorHubWebhooks", "ReactorHubAuth", "ReactorHubEngine", "ReactorHubProtocol", "ReactorHubJSON"],
            swiftSettings: strict
        ),
        .testTarget(name: "AuthTests", dependencies: ["ReactorHubProtocol", "ReactorHubAuth", "ReactorHubJSON"], exclude: ["Vectors"], swiftSettings: strict),
        .testTarget(name: "PersistenceTests", dependencies: ["ReactorHubProtocol", "ReactorHubSQLite", "ReactorHubStore", "ReactorHubJSON", "ReactorHubLogging"], swiftSettings: strict),
        .testTarget(
            name: "JSONTests",
            dependencies: ["ReactorHubJSON", "JSONTestSupport"],
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
        ("json-parser", ["ReactorHubJSON"]),
        ("client-message", ["ReactorHubProtocol", "ReactorHubJSON"]),
        ("action-decoder", ["ReactorHubJSON", "ReactorHubKinds"]),
        ("json-pointer", ["ReactorHubJSON"]),
        ("patch-apply", ["ReactorHubJSON"]),
        ("static-path", ["ReactorHubWebSocketServer", "ReactorHubEngine", "ReactorHubProtocol"]),
        ("token", ["ReactorHubAuth", "ReactorHubProtocol"]),
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
