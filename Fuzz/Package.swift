// swift-tools-version: 6.1
import PackageDescription

// Gangway's libFuzzer harnesses, in a package of their own so that the root package's
// `swift build` and `swift test` never build them. `scripts/fuzz` builds them with every
// Swift module instrumented (AddressSanitizer and libFuzzer's coverage) and runs one.

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let gangway = "Gangway"
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let httpTypes = Target.Dependency.product(name: "HTTPTypes", package: "swift-http-types")
let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")
let hummingbirdCore = Target.Dependency.product(name: "HummingbirdCore", package: "hummingbird")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
let openAPIRuntime = Target.Dependency.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")

func gangwayProduct(_ name: String) -> Target.Dependency { .product(name: name, package: gangway) }

/// The harnesses: one executable each, named as `scripts/fuzz` names it, whose
/// `main.swift` hands its `LLVMFuzzerTestOneInput` to libFuzzer.
let harnesses: [(name: String, dependencies: [Target.Dependency])] = [
    (
        "FuzzForm",
        [
            gangwayProduct("GangwayServer"), gangwayProduct("GangwayServerStorage"), gangwayProduct("GangwayProtocol"),
            gangwayProduct("GangwayForms"), hummingbirdCore,
        ]
    ),
    (
        "FuzzHeaders",
        [gangwayProduct("GangwayServer"), gangwayProduct("GangwayForms"), gangwayProduct("GangwaySystem"), httpTypes]
    ),
    ("FuzzOAuthRequests", ["FuzzServer", httpTypes]),
    (
        "FuzzChangeBatch",
        ["FuzzServer", httpTypes, gangwayProduct("GangwayProtocol"), crypto]
    ),
    ("FuzzSealedChange", [gangwayProduct("GangwayProtocol"), gangwayProduct("GangwayServer"), crypto]),
    (
        "FuzzActivationLink",
        [
            gangwayProduct("GangwayServices"), gangwayProduct("GangwayServer"), gangwayProduct("GangwayProtocol"),
            crypto,
        ]
    ),
    (
        "FuzzIDToken",
        [
            gangwayProduct("GangwayServer"), gangwayProduct("GangwayServerStorage"), gangwayProduct("GangwayProtocol"),
            crypto, hummingbird, logging, nioCore,
        ]
    ),
    (
        "FuzzSettingsJSON",
        [
            "FuzzServer", gangwayProduct("GangwayPolicy"), gangwayProduct("GangwayProtocol"),
            gangwayProduct("GangwayServices"), httpTypes, openAPIRuntime,
        ]
    ),
    (
        "FuzzFlatJSON",
        [gangwayProduct("GangwayServerStorage"), gangwayProduct("GangwayProtocol"), gangwayProduct("GangwayClient")]
    ),
    ("FuzzLogUpload", ["FuzzServer", httpTypes]),
    ("FuzzProtocolText", [gangwayProduct("GangwayServer"), gangwayProduct("GangwayProtocol")]),
]

let package = Package(
    name: "GangwayFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: gangway, path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .target(name: "CLibFuzzer"),
        .target(
            name: "FuzzSupport",
            dependencies: ["CLibFuzzer"],
            swiftSettings: swiftSettings
        ),
        // An in-process server for the harnesses that send whole requests.
        .target(
            name: "FuzzServer",
            dependencies: [
                "FuzzSupport",
                gangwayProduct("GangwayServer"), gangwayProduct("GangwayServerStorage"),
                gangwayProduct("GangwayProtocol"), gangwayProduct("GangwayForms"),
                httpTypes, hummingbird, logging, nioCore,
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
        + harnesses.map { harness in
            .executableTarget(
                name: harness.name,
                dependencies: ["FuzzSupport"] + harness.dependencies,
                swiftSettings: swiftSettings,
                // libFuzzer itself, in the harnesses only: the build tools (Gangway's
                // resource embedder) are instrumented too, and must keep their own `main`.
                linkerSettings: [.unsafeFlags(["-sanitize=fuzzer", "-use-ld=lld"])]
            )
        }
)
