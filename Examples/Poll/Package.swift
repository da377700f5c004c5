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
        .testTarget(
            name: "PollKitTests",
            dependencies: ["PollKit", .product(name: "ReactorTesting", package: "ReactorHub")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
