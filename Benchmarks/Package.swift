// swift-tools-version: 6.1
import PackageDescription

// Release-mode throughput benchmark: raw URLSession + JSONDecoder against Courier's
// `Client.enqueue(_:).resume(expecting:)`, interleaved, against a loopback HTTP server.
//
//     swift run -c release --package-path Benchmarks courier-bench
//
// A package of its own, so that its `.build/` stays under Benchmarks/ and never contends with the
// root package's build. The root package is named explicitly: a path dependency's identity would
// otherwise be the checkout directory's name.
let package = Package(
    name: "CourierBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Courier", path: ".."),
        .package(url: "https://github.com/swhitty/FlyingFox.git", from: "0.27.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // The in-memory tracing and metrics backends of `--overhead`'s `courier-observed`.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // Counts allocations per call in `--overhead` (preloaded by the benchmark itself).
        .package(url: "https://github.com/ordo-one/malloc-interposer.git", from: "1.6.1"),
        // `--overhead`'s `openapi` variant: a generated client's transport.
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
    ],
    targets: [
        .executableTarget(
            name: "courier-bench",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                // `--overhead`'s `declared` client (Overhead.swift).
                .product(name: "CourierEndpoints", package: "Courier"),
                .product(name: "CourierOpenAPI", package: "Courier"),
                .product(name: "CourierWebSockets", package: "Courier"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                // `--websocket-echo`'s raw client and echo server (WebSocketEchoBench.swift).
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        )
    ]
)
