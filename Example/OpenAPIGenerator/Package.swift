// swift-tools-version:6.0
// Builds apple/swift-openapi-generator's command-line tool, and nothing else, so that
// Example/DemoAPIClient/generate.sh can `swift run` it. Not part of the Courier package or CI.
import PackageDescription

let package = Package(
    name: "OpenAPIGenerator",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3")
    ]
)
