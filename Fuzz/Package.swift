// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for every Courier parser of outside input. Built and run by `run.sh`
// (see README.md); not part of the root package, so `swift build` and `swift test` at the root
// never compile them. Each target is an executable whose only file defines
// `LLVMFuzzerTestOneInput`; libFuzzer's runtime supplies `main`.
//
// The sanitizer flags come from the command line (`-Xswiftc -sanitize=fuzzer,address`), not
// from here: SwiftPM refuses `unsafeFlags` in a package that is not the root, and the flags
// must reach Courier's own modules too, so that libFuzzer sees their coverage.

let targets = [
    "FuzzXMLTree", "FuzzXMLBodyDecoder", "FuzzSOAP",
    "FuzzOAuth2TokenResponse", "FuzzOAuth2ErrorBody", "FuzzDeviceAuthorizationResponse", "FuzzAuthorizationServerMetadata",
    "FuzzRetryAfter", "FuzzProblemDetails",
    "FuzzBaseURL", "FuzzTokenFileFormat", "FuzzQueryString",
    "FuzzAuthorizationResponse", "FuzzLoopbackRequest", "FuzzLoopbackCallback", "FuzzServerSentEvents",
    "FuzzNetlink",
    "FuzzFixtureFormat",
    "FuzzContentRange", "FuzzDownloadState",
    "FuzzCacheControl", "FuzzCacheEntry", "FuzzCacheIndex",
    "FuzzSetCookie",
    "FuzzWebSocketFrames",
]

// Targets that read more than Courier and CourierXML.
let oauth: [Target.Dependency] = [.product(name: "CourierOAuth", package: "Courier")]
let extraDependencies: [String: [Target.Dependency]] = [
    "FuzzFixtureFormat": [.product(name: "CourierTesting", package: "Courier")],
    "FuzzNetlink": [.product(name: "CourierConnectivity", package: "Courier")],
    "FuzzAuthorizationServerMetadata": oauth, "FuzzDeviceAuthorizationResponse": oauth,
    "FuzzAuthorizationResponse": oauth, "FuzzLoopbackRequest": oauth, "FuzzLoopbackCallback": oauth,
]

let package = Package(
    name: "CourierFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        // EncryptedTokenStore stays on (the token file format needs it); AsyncHTTPClient is left
        // out: no target here sends a request, and the build stays minutes shorter.
        .package(name: "Courier", path: "..", traits: ["EncryptedTokenStore"])
    ],
    targets: [
        .target(name: "CLibFuzzer", path: "Sources/CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "Sources/FuzzSupport"),
    ]
        + targets.map { name in
            .executableTarget(
                name: name,
                dependencies: [
                    "FuzzSupport",
                    .product(name: "Courier", package: "Courier"),
                    .product(name: "CourierXML", package: "Courier"),
                ] + (extraDependencies[name] ?? []),
                path: "Sources/\(name)"
            )
        }
)
