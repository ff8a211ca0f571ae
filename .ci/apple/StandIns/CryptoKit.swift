// Stand-in for Apple's CryptoKit, for type-checking Courier's Apple-only code on Linux
// (.ci/apple/typecheck.py): swift-crypto's `Crypto` module, whose API is CryptoKit's (on Apple
// platforms swift-crypto re-exports CryptoKit itself). Built against the package's own build of
// swift-crypto, so `swift build` must have run.

@_exported import Crypto
