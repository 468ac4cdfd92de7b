// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// A product of a package that only the server uses: resolved and built with the `Server`
/// trait only. The trait is on by default (the `gangway` binary needs it); an app that
/// links only the client products turns it off (`traits: []`) and resolves none of them.
func server(_ product: String, _ package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: ["Server"]))
}

let package = Package(
    name: "Gangway",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "GangwayPolicy", targets: ["GangwayPolicy"]),
        .library(name: "GangwayStore", targets: ["GangwayStore"]),
        .library(name: "GangwayScreens", targets: ["GangwayScreens"]),
        .library(name: "GangwayFlows", targets: ["GangwayFlows"]),
        .library(name: "GangwayTesting", targets: ["GangwayTesting"]),
        .library(name: "GangwayProtocol", targets: ["GangwayProtocol"]),
        .library(name: "GangwayClient", targets: ["GangwayClient"]),
        .library(name: "GangwayServices", targets: ["GangwayServices"]),
        .library(name: "GangwayAdmin", targets: ["GangwayAdmin"]),
        .library(name: "GangwaySystem", targets: ["GangwaySystem"]),
        .library(name: "GangwayServerStorage", targets: ["GangwayServerStorage"]),
        .library(name: "GangwayForms", targets: ["GangwayForms"]),
        .library(name: "GangwayServer", targets: ["GangwayServer"]),
        .library(name: "GangwayServerTesting", targets: ["GangwayServerTesting"]),
        .executable(name: "gangway", targets: ["gangway"]),
        .executable(name: "gangway-benchmark", targets: ["GangwayBenchmarks"]),
    ],
    traits: [
        .trait(
            name: "Server",
            description: "The mobile-services server, its storage and console, the demo, and the gangway binary."
        ),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird.git", from: "2.1.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/swift-otel/swift-w3c-trace-context.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/yaslab/CSV.swift.git", from: "2.5.2"),
    ],
    targets: [
        .target(
            name: "GangwayPolicy",
            swiftSettings: swiftSettings
        ),
        // QR codes drawn in Swift (ISO/IEC 18004, byte mode): SVG for the console, PNG for
        // the API, text blocks for a terminal; no program needs to be installed.
        .target(
            name: "GangwayQRCode",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GangwaySystem",
            dependencies: [
                .product(name: "Subprocess", package: "swift-subprocess"),
                // Subprocess names files with System's `FilePath`: the SDK's on Apple
                // platforms, swift-system's elsewhere.
                .product(name: "SystemPackage", package: "swift-system", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GangwayStore",
            dependencies: [
                "GangwaySystem",
                "GangwayPolicy",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GangwayScreens",
            dependencies: ["GangwayPolicy"],
            swiftSettings: swiftSettings,
            plugins: ["EmbedResources"]
        ),
        .target(
            name: "GangwayFlows",
            dependencies: [
                "GangwaySystem",
                "GangwayStore",
                "GangwayScreens",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                "GangwayPolicy",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GangwayTesting",
            dependencies: [
                "GangwayPolicy",
                "GangwayStore",
                "GangwayScreens",
                "GangwayFlows",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The API's wire types, written by swift-openapi-generator from openapi.json ahead of
        // time (scripts/generate-api, Generated/): the `Components` and `Operations`
        // namespaces and `APIProtocol`, public; GangwayProtocol re-exports them. No build
        // runs the generator: neither Gangway's builds nor an app's compile it, and Xcode
        // asks no one to trust a build plugin. GeneratedSourcesTests fails when the document
        // changed and Generated/ did not.
        .target(
            name: "GangwayWire",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            path: "Generated/GangwayWire",
            swiftSettings: swiftSettings
        ),
        // The API's client, generated once for the device library and the admin (`package`
        // access: theirs, and no app's), over GangwayClient's transports.
        .target(
            name: "GangwayWireClient",
            dependencies: [
                "GangwayWire",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            path: "Generated/GangwayWireClient",
            swiftSettings: swiftSettings
        ),
        // The server's side of the operations (each request read into its operation's input,
        // each output written as the document says), for GangwayServer (`package` access).
        .target(
            name: "GangwayWireServer",
            dependencies: [
                "GangwayWire",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            path: "Generated/GangwayWireServer",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GangwayProtocol",
            dependencies: [
                "GangwayPolicy",
                "GangwayWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["EmbedResources"]
        ),
        // What every client of the server shares, the device library and the admin alike:
        // its calls, their errors, the transport and the settings an app reads. Nothing of
        // the server, the store or the flows.
        .target(
            name: "GangwayClient",
            dependencies: [
                "GangwayPolicy",
                "GangwayProtocol",
                "GangwayScreens",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(
                    name: "OpenAPIAsyncHTTPClient",
                    package: "swift-openapi-async-http-client",
                    condition: .when(platforms: [.linux])
                ),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GangwayServices",
            dependencies: [
                "GangwayClient",
                "GangwayWireClient",
                "GangwaySystem",
                .product(name: "GRDB", package: "GRDB.swift"),
                "GangwayStore",
                "GangwayScreens",
                "GangwayFlows",
                "GangwayProtocol",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "GangwayPolicy",
            ],
            swiftSettings: swiftSettings
        ),
        // The server's storage: each query written once, run by a SQLite (GRDB) or a
        // PostgreSQL (postgres-nio) driver.
        .target(
            name: "GangwayServerStorage",
            dependencies: [
                "GangwayProtocol",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                server("PostgresNIO", "postgres-nio"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                server("Tracing", "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        // The operator's console, apart from the server that serves it: its pages as
        // Mustache templates and their models, the app settings form and the audit in an
        // operator's words, the second factor (TOTP), and what it asks of the server
        // (ConsoleServices).
        .target(
            name: "GangwayConsole",
            dependencies: [
                "GangwayForms",
                "GangwayPolicy",
                "GangwayProtocol",
                "GangwayServerStorage",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                server("Hummingbird", "hummingbird"),
                server("Mustache", "swift-mustache"),
            ],
            swiftSettings: swiftSettings
        ),
        // What the server's HTML forms share (the console's and the sign-in, device and
        // consent pages'): anti-forgery, the pages' cookies, and form bodies read and written.
        .target(
            name: "GangwayForms",
            dependencies: [
                "GangwayProtocol",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GangwayServer",
            dependencies: [
                "GangwayServerStorage",
                "GangwayConsole",
                "GangwayForms",
                "GangwayQRCode",
                server("JWTKit", "jwt-kit"),
                server("W3CTraceContext", "swift-w3c-trace-context"),
                server("Tracing", "swift-distributed-tracing"),
                // The server's own requests: to an app's OpenID Connect provider.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                "GangwaySystem",
                "GangwayPolicy",
                "GangwayProtocol",
                "GangwayWireServer",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                server("Hummingbird", "hummingbird"),
                server("HummingbirdBcrypt", "hummingbird-auth"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                server("UnixSignals", "swift-service-lifecycle"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                server("OpenAPIHummingbird", "swift-openapi-hummingbird"),
                server("PostgresNIO", "postgres-nio"),
                // The operator's figures: recorded through swift-metrics, exposed in the
                // Prometheus text format on the metrics listener.
                server("Metrics", "swift-metrics"),
                server("Prometheus", "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The operator's side: the admin API's client. It links neither the server nor the
        // device library, and nothing of the device app depends on it.
        .target(
            name: "GangwayAdmin",
            dependencies: [
                "GangwayClient",
                "GangwayWireClient",
                "GangwayPolicy",
                "GangwayProtocol",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: swiftSettings
        ),
        // Test support: never a dependency of GangwayTerminal or gangway.
        .target(
            name: "GangwayServerTesting",
            dependencies: [
                "GangwayTesting",
                "GangwayServerStorage",
                "GangwayPolicy",
                "GangwayServer",
                "GangwaySystem",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                server("Hummingbird", "hummingbird"),
                server("HummingbirdTesting", "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GangwayTerminal",
            dependencies: [
                "GangwayQRCode",
                "GangwaySystem",
                "GangwayStore",
                "GangwayScreens",
                "GangwayFlows",
                "GangwayServices",
                "GangwayProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                "GangwayPolicy",
            ],
            swiftSettings: swiftSettings,
            plugins: ["EmbedResources"]
        ),
        // The demo's servers: the device app's embedded mobile-services server, seeded with
        // the demo app, and the demo airline's crew backend. Linked by the `gangway` binary,
        // never by the device app's module.
        .target(
            name: "GangwayDemo",
            dependencies: [
                "GangwayClient",
                "GangwayPolicy",
                "GangwayProtocol",
                "GangwayServer",
                "GangwayServerStorage",
                "GangwaySystem",
                "GangwayTerminal",
                server("Hummingbird", "hummingbird"),
                server("JWTKit", "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GangwayCommands",
            dependencies: [
                "GangwayServerStorage",
                "GangwayAdmin",
                "GangwayClient",
                "GangwayDemo",
                "GangwayPolicy",
                "GangwayProtocol",
                "GangwayScreens",
                "GangwayStore",
                "GangwayServer",
                "GangwayTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                "GangwayServices",
                "GangwaySystem",
                .product(name: "Logging", package: "swift-log"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "gangway",
            dependencies: ["GangwayCommands"],
            swiftSettings: swiftSettings
        ),
        // Makes the modules' JSON resources part of their code: the binary needs no bundle
        // beside it, wherever it is copied.
        .executableTarget(name: "gangway-embed", path: "Plugins/EmbedTool", swiftSettings: swiftSettings),
        .plugin(name: "EmbedResources", capability: .buildTool(), dependencies: ["gangway-embed"]),
        // The commands with the test hooks, for the end-to-end tests only: never a product.
        .executableTarget(
            name: "gangway-test-host",
            dependencies: ["GangwayCommands"],
            path: "Tests/GangwayTestHost",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "GangwayBenchmarks",
            dependencies: [
                "GangwayAdmin",
                "GangwayClient",
                "GangwayServerStorage",
                "GangwaySystem",
                "GangwayPolicy",
                "GangwayProtocol",
                "GangwayStore",
                "GangwayScreens",
                "GangwayFlows",
                "GangwayServer",
                "GangwayServices",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                server("Hummingbird", "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                server("Tracing", "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayPolicyTests",
            dependencies: ["GangwayPolicy"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayQRCodeTests",
            dependencies: ["GangwayQRCode", "GangwaySystem", "GangwayTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwaySystemTests",
            dependencies: ["GangwaySystem"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayProtocolTests",
            dependencies: ["GangwayPolicy", "GangwayProtocol", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayTestingTests",
            dependencies: ["GangwayFlows", "GangwayPolicy", "GangwayScreens", "GangwayTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayStoreTests",
            dependencies: [
                "GangwayPolicy",
                "GangwayStore",
                "GangwayTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayScreensTests",
            dependencies: ["GangwayPolicy", "GangwayScreens"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayFlowsTests",
            dependencies: [
                "GangwayPolicy",
                "GangwayFlows",
                "GangwayScreens",
                "GangwayStore",
                "GangwayTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayFormsTests",
            dependencies: ["GangwayForms", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayConsoleTests",
            dependencies: ["GangwayConsole", "GangwayPolicy", "GangwayProtocol", server("Mustache", "swift-mustache")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayServerTests",
            dependencies: [
                server("InMemoryTracing", "swift-distributed-tracing"),
                server("Tracing", "swift-distributed-tracing"),
                "GangwayClient",
                "GangwayServerStorage",
                "GangwayConsole",
                "GangwayQRCode",
                server("JWTKit", "jwt-kit"),
                "GangwayServer",
                "GangwaySystem",
                "GangwayServerTesting",
                "GangwayProtocol",
                "GangwayTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                server("HummingbirdTesting", "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayServerStorageTests",
            dependencies: [
                "GangwayProtocol",
                "GangwayServerStorage",
                "GangwayServerTesting",
                "GangwayTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                server("InMemoryTracing", "swift-distributed-tracing"),
                server("Tracing", "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayTerminalTests",
            dependencies: [
                "GangwayFlows",
                "GangwayPolicy",
                "GangwayProtocol",
                "GangwayScreens",
                "GangwayServices",
                "GangwaySystem",
                "GangwayTerminal",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayServicesTests",
            dependencies: [
                "GangwayServerStorage",
                "GangwayAdmin",
                "GangwayPolicy",
                "GangwaySystem",
                "GangwayServices",
                "GangwayServer",
                "GangwayServerTesting",
                "GangwayProtocol",
                "GangwayFlows",
                "GangwayScreens",
                "GangwayStore",
                "GangwayTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayServerTestingTests",
            dependencies: [
                "GangwayPolicy",
                "GangwayServer",
                "GangwayServerStorage",
                "GangwayServerTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GangwayCommandsTests",
            dependencies: [
                "GangwayConsole",
                "GangwayServerStorage",
                "GangwayAdmin",
                "GangwayCommands",
                "GangwayTerminal",
                "GangwayServices",
                "GangwayServerTesting",
                "GangwayTesting",
                "GangwaySystem",
                // Not imported: the binaries the end-to-end tests run, and the benchmark
                // binary whose links a test checks.
                "gangway",
                "gangway-test-host",
                "GangwayBenchmarks",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
