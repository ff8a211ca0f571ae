import Foundation

/// Every way Swift turns a value into text: `print`/`String(describing:)`, string
/// interpolation, `debugPrint`/`String(reflecting:)`, and `dump`, which walks the value's mirror
/// (as Xcode's variables view and reflection-based loggers do).
func everyRendering(of value: Any) -> [String] {
    var dumped = ""
    dump(value, to: &dumped)
    var printed = ""
    print(value, to: &printed)
    var debugPrinted = ""
    debugPrint(value, to: &debugPrinted)
    return [String(describing: value), "\(value)", String(reflecting: value), dumped, printed, debugPrinted]
}

/// The renderings of `value` that contain `secret`, for an `#expect(… .isEmpty)` that shows them.
func renderings(of value: Any, containing secret: String) -> [String] {
    everyRendering(of: value).filter { $0.contains(secret) }
}
