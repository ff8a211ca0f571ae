/// Facts about the Courier library itself.
///
/// (Not named `Courier`: a type named like its module would hide the module's name, and
/// `Courier.Client` could no longer be written to tell Courier's `Client` from another.)
public enum CourierLibrary {
    /// The library's version, as sent in the default `User-Agent`.
    public static let version = "0.4.0"
}
