// swift-tools-version:6.0
// A package of its own that uses ReactorHub as a dependency, as your project would:
// `.package(path: "../..")` here; a URL and a version in yours.
import PackageDescription

let package = Package(
    name: "Poll",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ReactorHub", path: "../.."),
    ],
    targets: [
        .target(name: "PollKit", dependencies: [.product(name: "Reactor", package: "ReactorHub")]),
        .executableTarget(
            name: "poll-server",
            dependencies: ["PollKit", .product(name: "ReactorHubServer", package: "ReactorHub")]
        ),
        // The app's side: the same PollKit, predicted on the client through ReactorHubClient.
        .target(name: "PollApp", dependencies: ["PollKit", .product(name: "ReactorHubClient", package: "ReactorHub")]),
        .executableTarget(name: "poll-app", dependencies: ["PollApp", "PollKit", .product(name: "ReactorHubClient", package: "ReactorHub")]),
        .testTarget(
            name: "PollKitTests",
            dependencies: ["PollKit", .product(name: "ReactorTesting", package: "ReactorHub")]
        ),
        .testTarget(
            name: "PollAppTests",
            dependencies: ["PollApp", "PollKit", .product(name: "ReactorHubClient", package: "ReactorHub"), .product(name: "Reactor", package: "ReactorHub")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
