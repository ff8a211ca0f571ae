import Courier
import Foundation

/// The TLS fixtures the integration tests share (`Tests/CourierIntegrationTests/Fixtures/TLS`,
/// made by its `make-certificates.sh`), read by path from the source tree.
enum TLSFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TLS
        .deletingLastPathComponent()  // CourierTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("CourierIntegrationTests/Fixtures/TLS")

    static func data(_ file: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(file))
    }

    /// The base64 pin of `name` in `pins.txt`, as openssl computed it.
    static func pinBase64(_ name: String) throws -> String {
        for line in String(decoding: try data("pins.txt"), as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: " ")
            if fields.count == 2, fields[0] == name { return String(fields[1]) }
        }
        throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "no pin named \(name) in pins.txt"])
    }
}
