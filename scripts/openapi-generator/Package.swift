// swift-tools-version: 6.1
import PackageDescription

// The OpenAPI generator at the exact version that wrote Generated/: what
// `scripts/generate-api` runs. Gangway's own package does not depend on it, so neither its
// builds nor an app that adds Gangway compile the generator or run a build plugin.
let package = Package(
    name: "GangwayAPIGenerator",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator.git", exact: "1.14.3")
    ]
)
