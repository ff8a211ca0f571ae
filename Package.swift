// swift-tools-version: 6.2
import PackageDescription

/// Settings every Courier target shares: Swift 6 language mode comes from the tools version;
/// these turn on the upcoming features we write against.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// Where async-http-client (and SwiftNIO, BoringSSL) and swift-crypto are linked by default: the
/// platforms without Apple's URLSession and CryptoKit. Apple platforms use those and link neither
/// unless `AsyncHTTPClientOnApple` asks for async-http-client there.
let nonApplePlatforms: [Platform] = [.linux, .android, .windows, .openbsd, .wasi]

/// The Apple platforms, where async-http-client is linked only with `AsyncHTTPClientOnApple`.
let applePlatforms: [Platform] = [.macOS, .macCatalyst, .iOS, .tvOS, .watchOS, .visionOS]

/// Dependencies of the `AsyncHTTPClient` trait: `names` on `nonApplePlatforms`, and on Apple
/// platforms with `AsyncHTTPClientOnApple` through the `CourierAsyncHTTPClientOnApple` target
/// (SwiftPM keeps one entry per product, whatever their conditions, so a second, Apple-only
/// entry of the same products would be dropped).
func asyncHTTPClientProducts(_ names: [(product: String, package: String)]) -> [Target.Dependency] {
    names.map { name -> Target.Dependency in
        .product(name: name.product, package: name.package, condition: .when(platforms: nonApplePlatforms, traits: ["AsyncHTTPClient"]))
    } + [.target(name: "CourierAsyncHTTPClientOnApple", condition: .when(platforms: applePlatforms, traits: ["AsyncHTTPClientOnApple"]))]
}

/// `AsyncHTTPClientLinked`, the compile condition of the code that uses async-http-client: set
/// exactly where `asyncHTTPClientProducts` links it.
let asyncHTTPClientCondition: [SwiftSetting] = [
    .define("AsyncHTTPClientLinked", .when(platforms: nonApplePlatforms, traits: ["AsyncHTTPClient"])),
    .define("AsyncHTTPClientLinked", .when(platforms: applePlatforms, traits: ["AsyncHTTPClientOnApple"])),
]

let package = Package(
    name: "Courier",
    platforms: [
        .macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9),
    ],
    products: [
        .library(name: "Courier", targets: ["Courier"]),
        .library(name: "CourierOAuth", targets: ["CourierOAuth"]),
        .library(name: "CourierConnectivity", targets: ["CourierConnectivity"]),
        .library(name: "CourierTesting", targets: ["CourierTesting"]),
        .library(name: "CourierXML", targets: ["CourierXML"]),
        .library(name: "CourierEndpoints", targets: ["CourierEndpoints"]),
        .library(name: "CourierOpenAPI", targets: ["CourierOpenAPI"]),
        .library(name: "CourierWebSockets", targets: ["CourierWebSockets"]),
        .executable(name: "courier-demo", targets: ["courier-demo"]),
    ],
    traits: [
        .trait(
            name: "EncryptedTokenStore",
            description: "FileTokenStore: an AES-GCM encrypted token file (swift-crypto on Linux, CryptoKit on Apple platforms)."
        ),
        .trait(
            name: "AsyncHTTPClient",
            description: "AsyncHTTPClientTransport over async-http-client (SwiftNIO): the default transport off Apple platforms."
        ),
        .trait(
            name: "AsyncHTTPClientOnApple",
            description: "AsyncHTTPClientTransport on Apple platforms too (links SwiftNIO and BoringSSL there); URLSession stays the default transport.",
            enabledTraits: ["AsyncHTTPClient"]
        ),
        .default(enabledTraits: ["EncryptedTokenStore", "AsyncHTTPClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        // NIOHTTPCompression: async-http-client's decompression-limit error, mapped to `responseTooLarge`.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swhitty/FlyingFox.git", from: "0.27.1"),
        .package(url: "https://github.com/CoreOffice/XMLCoder.git", from: "0.18.2"),
        // CourierOpenAPI: generated clients' `ClientTransport` (it depends on swift-http-types only).
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        // Property tests: the HTTP cache's promises (CourierTests), CourierOpenAPI's (CourierIntegrationTests).
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        // `swift package generate-documentation` (Documentation/docc.sh); a plugin, linked into nothing.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "Courier",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                // CryptoKit and CommonCrypto on Apple platforms.
                .product(name: "Crypto", package: "swift-crypto", condition: .when(platforms: nonApplePlatforms, traits: ["EncryptedTokenStore"])),
                .product(name: "_CryptoExtras", package: "swift-crypto", condition: .when(platforms: nonApplePlatforms, traits: ["EncryptedTokenStore"])),
            ]
                + asyncHTTPClientProducts([
                    ("AsyncHTTPClient", "async-http-client"), ("NIOCore", "swift-nio"), ("NIOHTTP1", "swift-nio"),
                    ("NIOPosix", "swift-nio"), ("NIOSSL", "swift-nio-ssl"), ("NIOHTTPCompression", "swift-nio-extras"),
                    ("NIOTLS", "swift-nio"), ("NIOWebSocket", "swift-nio"),
                ]),
            swiftSettings: strictSettings + asyncHTTPClientCondition
        ),
        // async-http-client and the SwiftNIO modules Courier and its tests use, for Apple platforms
        // with `AsyncHTTPClientOnApple` (see `asyncHTTPClientProducts`); no code of its own.
        .target(
            name: "CourierAsyncHTTPClientOnApple",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ],
            swiftSettings: strictSettings
        ),
        // The interactive OAuth 2.0 sign-in flows: authorization code with PKCE (loopback receiver,
        // web-authentication session), device authorization, discovery and revocation.
        .target(
            name: "CourierOAuth",
            dependencies: [
                "Courier",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The network-path monitor (rtnetlink on Linux, Network.framework on Apple platforms)
        // and the connectivity constraint built on it.
        .target(
            name: "CourierConnectivity",
            dependencies: [
                "Courier",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CourierWebSockets",
            dependencies: ["Courier", .product(name: "HTTPTypes", package: "swift-http-types")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CourierTesting",
            dependencies: [
                "Courier", "CourierConnectivity", "CourierWebSockets",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CourierXML",
            dependencies: ["Courier", .product(name: "XMLCoder", package: "XMLCoder")],
            swiftSettings: strictSettings
        ),
        // The declarative endpoints: `API`, `Endpoint<Policy, Model>`, `TypedCall`, built on
        // `Requestable` (with `package` access to what of Courier they need).
        .target(
            name: "CourierEndpoints",
            dependencies: ["Courier"],
            swiftSettings: strictSettings
        ),
        // A swift-openapi-runtime `ClientTransport` that sends generated operations through a
        // `Client`.
        .target(
            name: "CourierOpenAPI",
            dependencies: [
                "Courier",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        // The demo API's client, generated from Example/DemoAPIClient/openapi.yaml by
        // Example/DemoAPIClient/generate.sh (committed; CI does not run the generator). Plain
        // settings: generated code, not written to the house's upcoming features. Its name is
        // Courier's: target names are unique across a package graph, so a user's own `DemoAPI`
        // target would not resolve beside one of ours.
        .target(
            name: "CourierDemoAPI",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Example/DemoAPIClient/Generated"
        ),
        .executableTarget(
            name: "courier-demo",
            dependencies: [
                "Courier", "CourierOAuth", "CourierOpenAPI", "CourierWebSockets", "CourierDemoAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
            ],
            path: "Example/courier-demo",
            // Its banner names the transport `Configuration.defaultTransport` sends through.
            swiftSettings: strictSettings + asyncHTTPClientCondition
        ),
        // Support for the package's own tests, in no product (unlike CourierTesting):
        // `AsyncHTTPClientTransport.Configuration`, async-http-client's settings described with PEM
        // bytes, as the TLS, proxy and pool tests describe them. Empty without async-http-client.
        .target(
            name: "CourierTransportTestSupport",
            dependencies: ["Courier"]
                + asyncHTTPClientProducts([
                    ("AsyncHTTPClient", "async-http-client"), ("NIOCore", "swift-nio"), ("NIOSSL", "swift-nio-ssl"),
                ]),
            path: "Tests/CourierTransportTestSupport",
            swiftSettings: strictSettings + asyncHTTPClientCondition
        ),
        .testTarget(
            name: "CourierTests",
            dependencies: [
                "Courier", "CourierOAuth", "CourierConnectivity", "CourierTesting", "CourierTransportTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSettings + asyncHTTPClientCondition
        ),
        .testTarget(
            name: "CourierTestingTests",
            dependencies: [
                "Courier", "CourierTesting", "CourierWebSockets",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // Fixture files, read through `Bundle.module` as users' test targets do; `.copy`
            // keeps the folders, which are part of the fixtures' names.
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierEndpointsTests",
            dependencies: [
                "Courier", "CourierEndpoints", "CourierTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierXMLTests",
            dependencies: ["Courier", "CourierXML", "CourierTesting"],
            swiftSettings: strictSettings
        ),
        // The guides' code (README.md, Documentation/*.md), generated by .ci/guides.py: a guide
        // whose code stops compiling fails the build; its runnable blocks are tests.
        .testTarget(
            name: "CourierGuideTests",
            dependencies: [
                "Courier", "CourierOAuth", "CourierConnectivity", "CourierTesting", "CourierXML", "CourierEndpoints", "CourierOpenAPI",
                "CourierWebSockets", "CourierDemoAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "XMLCoder", package: "XMLCoder"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ] + asyncHTTPClientProducts([("AsyncHTTPClient", "async-http-client"), ("NIOSSL", "swift-nio-ssl")]),
            // Read through `Bundle.module` as the testing guide shows.
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings + asyncHTTPClientCondition
        ),
        .testTarget(
            name: "CourierIntegrationTests",
            dependencies: [
                "Courier", "CourierOAuth", "CourierConnectivity", "CourierTesting", "CourierEndpoints", "CourierOpenAPI", "CourierDemoAPI",
                "CourierWebSockets", "CourierTransportTestSupport",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                // The TLS test server (TLSTestServer.swift): HTTPS with a chosen certificate,
                // mutual TLS, and HTTP/2 over ALPN; the WebSocket test server (WebSocketTestServer.swift).
            ]
                + asyncHTTPClientProducts([
                    ("NIOCore", "swift-nio"), ("NIOPosix", "swift-nio"), ("NIOHTTP1", "swift-nio"), ("NIOTLS", "swift-nio"),
                    ("NIOSSL", "swift-nio-ssl"), ("NIOHTTP2", "swift-nio-http2"), ("NIOWebSocket", "swift-nio"),
                ]),
            exclude: ["Fixtures"],
            swiftSettings: strictSettings + asyncHTTPClientCondition
        ),
    ]
)
