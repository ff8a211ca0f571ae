/// Facts about the Courier library itself.
enum CourierLibrary {
    /// The library's version, as sent in the default `User-Agent`.
    static let version = "0.4.0"
}
