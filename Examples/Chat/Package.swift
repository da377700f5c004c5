// swift-tools-version:6.0
// A chat on ReactorHub: a kind that knows who acts (the sender in `mutate`), hears who
// joins and leaves, and has rules of its own. `.package(path: "../..")` here; a URL and a
// version in your project.
import PackageDescription

let package = Package(
    name: "Chat",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ReactorHub", path: "../.."),
    ],
    targets: [
        .target(name: "ChatKit", dependencies: [.product(name: "Reactor", package: "ReactorHub")]),
        .executableTarget(
            name: "chat-server",
            dependencies: ["ChatKit", .product(name: "ReactorHubServer", package: "ReactorHub")]
        ),
        // What happens when a kind's code traps: the daemon says where, then ends
        // (docs/reactors.md, "A trap ends the daemon"). For the tests; not a model.
        .executableTarget(
            name: "trap-server",
            dependencies: [.product(name: "Reactor", package: "ReactorHub"), .product(name: "ReactorHubServer", package: "ReactorHub")]
        ),
        .testTarget(
            name: "ChatKitTests",
            dependencies: ["ChatKit", .product(name: "Reactor", package: "ReactorHub"), .product(name: "ReactorTesting", package: "ReactorHub")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
