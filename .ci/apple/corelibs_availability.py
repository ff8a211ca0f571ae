"""Apple's availability of what Courier uses from corelibs-foundation and Dispatch.

The Linux interfaces of Foundation's NS classes, FoundationNetworking (URLSession and its kin),
FoundationXML and Dispatch carry none of Apple's `@available` (FoundationEssentials' and
FoundationInternationalization's do, and the compiler enforces those). So typecheck.py lists every
declaration of theirs an Apple build uses (from `swiftc -dump-ast`) and fails on one this table does
not record, or records above the package's minimums (macOS 13, iOS 16, tvOS 16, watchOS 9; visionOS
has iOS's). A new use of such an API therefore needs a line here, read off Apple's SDK.

Each value is when Apple introduced the declaration: ((macOS), (iOS), (tvOS), (watchOS)), each
(major, minor), or "unavailable". Tags say where it was read:
  [direct]  the member's own API_AVAILABLE / @available, or its documentation page
  [type]    the member has none: its class's, enum's or protocol's
  [base]    neither has one (the header was read): macOS 10.0 / iOS 2.0 / tvOS 9.0 / watchOS 2.0
  [base?]   the same, for a classic OpenStep class whose header was not opened
  [ovl]     a Swift-overlay member without one: Apple's documentation gives such members
            macOS 10.10 / iOS 8.0 / tvOS 9.0 / watchOS 2.0
Sources: the iOS 16.0 SDK's Dispatch.swiftinterface and iOS 15.4 SDK's Foundation.swiftinterface,
the macOS 10.15-12.3 SDKs' Foundation headers, the Foundation overlay's sources
(swiftlang/swift stdlib/public/Darwin/Foundation), developer.apple.com. A patch version (10.15.4)
is kept as (10, 15), with the exact one in the line's comment.
"""

APPLE = {
    # ---------------- Dispatch (Dispatch.swiftinterface, iOS 16.0 SDK) ----------------
    "Dispatch.+": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] `public func + (time: DispatchTime, ...)` unannotated; Dispatch framework doc page 10.10/8.0/9.0/2.0
    "Dispatch.DispatchQoS.QoSClass.userInitiated": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [direct] @available(macOS 10.10, iOS 8.0, *) case userInitiated
    "Dispatch.DispatchQueue.async(group:qos:flags:execute:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated in Dispatch.swiftinterface
    "Dispatch.DispatchQueue.asyncAfter(deadline:execute:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [direct] @available(macOS 10.10, iOS 8.0, *) asyncAfter(deadline:execute: DispatchWorkItem); doc page iOS 8.0/macOS 10.10 (closure overload asyncAfter(deadline:qos:flags:execute:) is unannotated)
    "Dispatch.DispatchQueue.global(qos:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [direct] @available(macOS 10.10, iOS 8.0, *)
    "Dispatch.DispatchQueue.init(label:qos:attributes:autoreleaseFrequency:target:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated convenience init
    "Dispatch.DispatchQueue.main": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] `public class var main` unannotated
    "Dispatch.DispatchSource.makeTimerSource(flags:queue:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Dispatch.DispatchSourceProtocol.resume()": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Dispatch.DispatchSourceProtocol.setEventHandler(qos:flags:handler:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated (only the DispatchWorkItem overload carries macOS 10.10/iOS 8.0)
    "Dispatch.DispatchSourceTimer.schedule(deadline:repeating:leeway:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] only @available(swift 4)
    "Dispatch.DispatchTime.<": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] struct DispatchTime and `static func <` unannotated
    "Dispatch.DispatchTime.distantFuture": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Dispatch.DispatchTime.init(uptimeNanoseconds:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Dispatch.DispatchTime.now()": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Dispatch.DispatchTime.uptimeNanoseconds": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Dispatch.DispatchWorkItem.cancel()": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [type] class DispatchWorkItem @available(macOS 10.10, iOS 8.0, *)
    "Dispatch.DispatchWorkItem.init(qos:flags:block:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [type] class DispatchWorkItem @available(macOS 10.10, iOS 8.0, *)

    # ---------------- Foundation: Bundle (NSBundle.h, MacOSX12.0 SDK) ----------------
    "Foundation.Bundle.bundleURL": ((10, 6), (4, 0), (9, 0), (2, 0)),  # [direct] API_AVAILABLE(macos(10.6), ios(4.0), watchos(2.0), tvos(9.0))
    "Foundation.Bundle.init(path:)": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base] -initWithPath: and @interface NSBundle unannotated
    "Foundation.Bundle.main": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base] +mainBundle unannotated
    "Foundation.Bundle.resourceURL": ((10, 6), (4, 0), (9, 0), (2, 0)),  # [direct] NSBundle.h
    "Foundation.Bundle.url(forResource:withExtension:)": ((10, 6), (4, 0), (9, 0), (2, 0)),  # [direct] NSBundle.h
    "Foundation.Bundle.url(forResource:withExtension:subdirectory:)": ((10, 6), (4, 0), (9, 0), (2, 0)),  # [direct] NSBundle.h

    # ---------------- Foundation: Swift-overlay value types / extensions ----------------
    "Foundation.CharacterSet.init(charactersIn:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] CharacterSet overlay struct (not individually looked up)
    "Foundation.CharacterSet.whitespaces": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] CharacterSet overlay struct (not individually looked up)
    "Foundation.Error.localizedDescription": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] `extension Error { var localizedDescription }` in overlay NSError.swift, unannotated (not individually looked up)

    # ---------------- Foundation: FileHandle (NSFileHandle.h 2019 SDK; Apple docs) ----------------
    "Foundation.FileHandle.close()": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [direct] -closeAndReturnError: API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0))
    "Foundation.FileHandle.init(forReadingFrom:)": ((10, 6), (4, 0), (9, 0), (2, 0)),  # [direct] +fileHandleForReadingFromURL:error: API_AVAILABLE(macos(10.6), ios(4.0), watchos(2.0), tvos(9.0))
    "Foundation.FileHandle.nullDevice": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] fileHandleWithNullDevice unannotated; FileHandle doc page macOS 10.0/iOS 2.0/tvOS 9.0/watchOS 2.0
    "Foundation.FileHandle.read(upToCount:)": ((10, 15), (13, 4), (13, 4), (6, 2)),  # [direct] Apple docs: macOS 10.15.4 (patch dropped), iOS 13.4, tvOS 13.4, watchOS 6.2 (overlay; ObjC -readDataUpToLength:error: is 10.15/13.0)
    "Foundation.FileHandle.write(contentsOf:)": ((10, 15), (13, 4), (13, 4), (6, 2)),  # [direct] Apple docs: macOS 10.15.4 (patch dropped), iOS 13.4, tvOS 13.4, watchOS 6.2

    # ---------------- Foundation: FileManager (NSFileManager.h) ----------------
    "Foundation.FileManager.enumerator(at:includingPropertiesForKeys:options:errorHandler:)": ((10, 6), (4, 0), (9, 0), (2, 0)),  # [direct] NS_AVAILABLE(10_6, 4_0) / API_AVAILABLE(macos(10.6), ios(4.0), watchos(2.0), tvos(9.0))
    "Foundation.FileManager.fileExists(atPath:isDirectory:)": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base] unannotated, NSFileManager class unannotated

    # ---------------- Foundation: ISO8601DateFormatter (NSISO8601DateFormatter.h) ----------------
    "Foundation.ISO8601DateFormatter.init()": ((10, 12), (10, 0), (10, 0), (3, 0)),  # [type] API_AVAILABLE(macosx(10.12), ios(10.0), watchos(3.0), tvos(10.0)) @interface NSISO8601DateFormatter
    "Foundation.ISO8601DateFormatter.string(from:)": ((10, 12), (10, 0), (10, 0), (3, 0)),  # [type] same class annotation

    # ---------------- Foundation: InputStream (NSStream.h; Apple docs) ----------------
    "Foundation.InputStream.close()": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] NSStream.h unannotated; InputStream doc page macOS 10.0/iOS 2.0/tvOS 9.0/watchOS 2.0
    "Foundation.InputStream.init(data:)": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [direct] doc page init(data:) macOS 10.0/iOS 2.0/tvOS 9.0/watchOS 2.0 (header: unannotated)
    "Foundation.InputStream.open()": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] NSStream.h unannotated; InputStream doc page
    "Foundation.InputStream.read(_:maxLength:)": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] NSStream.h unannotated; InputStream doc page

    # ---------------- Foundation: JSONSerialization (NSJSONSerialization.h 2019 SDK) ----------------
    "Foundation.JSONSerialization.ReadingOptions.fragmentsAllowed": ((10, 7), (5, 0), (9, 0), (2, 0)),  # [type] NSJSONReadingFragmentsAllowed unannotated; enum API_AVAILABLE(macos(10.7), ios(5.0), watchos(2.0), tvos(9.0))
    "Foundation.JSONSerialization.WritingOptions.fragmentsAllowed": ((10, 7), (5, 0), (9, 0), (2, 0)),  # [type] NSJSONWritingFragmentsAllowed unannotated; enum API_AVAILABLE(macos(10.7), ios(5.0), ...)
    "Foundation.JSONSerialization.WritingOptions.sortedKeys": ((10, 13), (11, 0), (11, 0), (4, 0)),  # [direct] API_AVAILABLE(macos(10.13), ios(11.0), watchos(4.0), tvos(11.0))
    "Foundation.JSONSerialization.WritingOptions.withoutEscapingSlashes": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [direct] API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0))
    "Foundation.JSONSerialization.data(withJSONObject:options:)": ((10, 7), (5, 0), (9, 0), (2, 0)),  # [type] class API_AVAILABLE(macos(10.7), ios(5.0), watchos(2.0), tvos(9.0))
    "Foundation.JSONSerialization.jsonObject(with:options:)": ((10, 7), (5, 0), (9, 0), (2, 0)),  # [type] class annotation

    # ---------------- Foundation: NSCondition / NSLock (NSLock.h, MacOSX12.0 SDK) ----------------
    "Foundation.NSCondition.broadcast()": ((10, 5), (2, 0), (9, 0), (2, 0)),  # [type] API_AVAILABLE(macos(10.5), ios(2.0), watchos(2.0), tvos(9.0)) @interface NSCondition
    "Foundation.NSCondition.init()": ((10, 5), (2, 0), (9, 0), (2, 0)),  # [type] NSCondition class annotation
    "Foundation.NSCondition.lock()": ((10, 5), (2, 0), (9, 0), (2, 0)),  # [type] NSCondition class annotation (NSLocking)
    "Foundation.NSCondition.unlock()": ((10, 5), (2, 0), (9, 0), (2, 0)),  # [type] NSCondition class annotation (NSLocking)
    "Foundation.NSCondition.wait()": ((10, 5), (2, 0), (9, 0), (2, 0)),  # [type] NSCondition class annotation
    "Foundation.NSCondition.wait(until:)": ((10, 5), (2, 0), (9, 0), (2, 0)),  # [type] -waitUntilDate: unannotated; class annotation
    "Foundation.NSLock.init()": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base] @interface NSLock unannotated (only .name is 10.5)
    "Foundation.NSLock.lock()": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base] NSLocking protocol unannotated
    "Foundation.NSLock.unlock()": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base] NSLocking protocol unannotated

    # ---------------- Foundation: classic ObjC API ----------------
    "Foundation.NSEnumerator.nextObject()": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base?] NSEnumerator.h not opened; classic unannotated API
    "Foundation.NSError.code": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base?] NSError class not opened (NSError.h key block seen unannotated); NSError shipped in 10.3 but is unannotated
    "Foundation.NSLocalizedDescriptionKey": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base] NSError.h: `FOUNDATION_EXPORT NSErrorUserInfoKey const NSLocalizedDescriptionKey;` unannotated
    "Foundation.NSNumber.int64Value": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base?] -longLongValue (NSValue.h not opened); classic unannotated API
    "Foundation.NSObject.init()": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base?] objc/NSObject.h not opened; root class
    "Foundation.NSString.deletingLastPathComponent": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base] NSPathUtilities.h: stringByDeletingLastPathComponent unannotated
    "Foundation.NSString.pathExtension": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base] NSPathUtilities.h: pathExtension unannotated
    "Foundation.NSURLErrorFailingURLErrorKey": ((10, 6), (4, 0), (9, 0), (2, 0)),  # [direct] NSURLError.h API_AVAILABLE(macos(10.6), ios(4.0), watchos(2.0), tvos(9.0))
    "Foundation.ObjCBool.boolValue": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] ObjectiveC overlay, unannotated (not individually looked up)

    # ---------------- Foundation: OperationQueue (NSOperation.h) ----------------
    "Foundation.OperationQueue.init()": ((10, 5), (2, 0), (9, 0), (2, 0)),  # [type] API_AVAILABLE(macos(10.5), ios(2.0), watchos(2.0), tvos(9.0)) @interface NSOperationQueue
    "Foundation.OperationQueue.maxConcurrentOperationCount": ((10, 5), (2, 0), (9, 0), (2, 0)),  # [type] property unannotated; class annotation
    "Foundation.OperationQueue.name": ((10, 6), (4, 0), (9, 0), (2, 0)),  # [direct] API_AVAILABLE(macos(10.6), ios(4.0), watchos(2.0), tvos(9.0))

    # ---------------- Foundation: OutputStream (NSStream.h) ----------------
    "Foundation.OutputStream.close()": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] NSStream.h unannotated; stream classes documented macOS 10.0/iOS 2.0 (InputStream page)
    "Foundation.OutputStream.hasSpaceAvailable": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] NSStream.h unannotated
    "Foundation.OutputStream.open()": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] NSStream.h unannotated
    "Foundation.OutputStream.streamStatus": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] NSStream.h unannotated
    "Foundation.OutputStream.write(_:maxLength:)": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] NSStream.h unannotated

    # ---------------- Foundation: Process (NSTask.h, MacOSX12.1 SDK; macOS-only) ----------------
    "Foundation.Process.arguments": ((10, 0), "unavailable", "unavailable", "unavailable"),  # [type] NSTask.h: unannotated, NSTask macOS-only (not in iOS/tvOS/watchOS SDKs; docs list macOS only)
    "Foundation.Process.executableURL": ((10, 13), "unavailable", "unavailable", "unavailable"),  # [direct] API_AVAILABLE(macos(10.13)) API_UNAVAILABLE(ios, watchos, tvos)
    "Foundation.Process.init()": ((10, 0), "unavailable", "unavailable", "unavailable"),  # [type] NSTask.h: -init unannotated; macOS-only class
    "Foundation.Process.run()": ((10, 13), "unavailable", "unavailable", "unavailable"),  # [direct] -launchAndReturnError: API_AVAILABLE(macos(10.13)) API_UNAVAILABLE(ios, watchos, tvos)

    # ---------------- Foundation: StringProtocol (Foundation overlay NSStringAPI) ----------------
    "Foundation.StringProtocol.contains": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] Foundation's StringProtocol.contains<T: StringProtocol>(_:) unannotated (NB: stdlib/_StringProcessing Collection.contains(_:) is macOS 13/iOS 16 - see ABOVE MINIMUM note)
    "Foundation.StringProtocol.range(of:options:range:locale:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated overlay member
    "Foundation.StringProtocol.replacingOccurrences(of:with:options:range:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated overlay member
    "Foundation.StringProtocol.trimmingCharacters(in:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [direct] doc page swift/stringprotocol/trimmingcharacters(in:): iOS 8.0, macOS 10.10, tvOS 9.0, watchOS 2.0

    # ---------------- Foundation: Thread (NSThread.h 2019 SDK) ----------------
    "Foundation.Thread.detachNewThread": ((10, 12), (10, 0), (10, 0), (3, 0)),  # [direct] +detachNewThreadWithBlock: API_AVAILABLE(macosx(10.12), ios(10.0), watchos(3.0), tvos(10.0))
    "Foundation.Thread.init(block:)": ((10, 12), (10, 0), (10, 0), (3, 0)),  # [direct] -initWithBlock: API_AVAILABLE(macosx(10.12), ios(10.0), watchos(3.0), tvos(10.0))
    "Foundation.Thread.name": ((10, 5), (2, 0), (9, 0), (2, 0)),  # [direct] API_AVAILABLE(macos(10.5), ios(2.0), watchos(2.0), tvos(9.0))
    "Foundation.Thread.start()": ((10, 5), (2, 0), (9, 0), (2, 0)),  # [direct] API_AVAILABLE(macos(10.5), ios(2.0), watchos(2.0), tvos(9.0))

    # ---------------- Foundation: URL / URLResourceValues (overlay URL.swift; NSURL.h) ----------------
    "Foundation.URL.resourceValues(forKeys:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] overlay URL.resourceValues(forKeys:) unannotated; wraps -resourceValuesForKeys:error: API_AVAILABLE(macos(10.6), ios(4.0), watchos(2.0), tvos(9.0))
    "Foundation.URL.setResourceValues": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] overlay unannotated; wraps -setResourceValues:error: 10.6/4.0/9.0/2.0
    "Foundation.URLResourceKey.isRegularFileKey": ((10, 6), (4, 0), (9, 0), (2, 0)),  # [direct] NSURLIsRegularFileKey API_AVAILABLE(macos(10.6), ios(4.0), watchos(2.0), tvos(9.0))
    "Foundation.URLResourceValues.init()": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] struct URLResourceValues / init() unannotated in URL.swift
    "Foundation.URLResourceValues.isExcludedFromBackup": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated in URL.swift; underlying NSURLIsExcludedFromBackupKey is 10.8/5.1/9.0/2.0
    "Foundation.URLResourceValues.isRegularFile": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated in URL.swift; underlying NSURLIsRegularFileKey 10.6/4.0

    # ---------------- Foundation: URLError (overlay NSError.swift; NSURLError.h; Apple docs) ----------------
    "Foundation.URLError.Code.badServerResponse": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated static var (NSURLErrorBadServerResponse unannotated)
    "Foundation.URLError.Code.cancelled": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [direct] doc page urlerror/code/cancelled: iOS 8.0, macOS 10.10, tvOS 9.0, watchOS 2.0
    "Foundation.URLError.Code.cannotConnectToHost": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Foundation.URLError.Code.cannotFindHost": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Foundation.URLError.Code.cannotWriteToFile": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Foundation.URLError.Code.dataLengthExceedsMaximum": ((10, 5), (2, 0), (9, 0), (2, 0)),  # [direct] overlay @available(macOS, introduced: 10.5) @available(iOS, introduced: 2.0); NSURLError.h API_AVAILABLE(macos(10.5), ios(2.0), watchos(2.0), tvos(9.0))
    "Foundation.URLError.Code.httpTooManyRedirects": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Foundation.URLError.Code.networkConnectionLost": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Foundation.URLError.Code.notConnectedToInternet": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Foundation.URLError.Code.rawValue": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] struct Code: RawRepresentable, unannotated
    "Foundation.URLError.Code.requestBodyStreamExhausted": ((10, 7), (3, 0), (9, 0), (2, 0)),  # [direct] overlay @available(macOS, introduced: 10.7) @available(iOS, introduced: 3.0); NSURLError.h API_AVAILABLE(macos(10.7), ios(3.0), watchos(2.0), tvos(9.0))
    "Foundation.URLError.Code.secureConnectionFailed": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Foundation.URLError.Code.serverCertificateUntrusted": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Foundation.URLError.Code.timedOut": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Foundation.URLError.Code.unknown": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated
    "Foundation.URLError.code": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] _BridgedStoredNSError.code, unannotated
    "Foundation.URLError.failingURL": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] unannotated; reads NSURLErrorFailingURLErrorKey (10.6/4.0/9.0/2.0)
    "Foundation.URLError.init(_:userInfo:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] _BridgedStoredNSError init, unannotated

    # ---------------- Foundation: UserDefaults (NSUserDefaults.h, MacOSX12.3 SDK) ----------------
    "Foundation.UserDefaults.set(_:forKey:)": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base] -setObject:forKey: (and typed setters) unannotated; class unannotated
    "Foundation.UserDefaults.standard": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base] +standardUserDefaults unannotated
    "Foundation.UserDefaults.string(forKey:)": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [base] -stringForKey: unannotated

    # ---------------- FoundationNetworking: cookies / responses / requests ----------------
    "FoundationNetworking.HTTPCookie.requestHeaderFields(with:)": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSHTTPCookie.h: +requestHeaderFieldsWithCookies: unannotated; class API_AVAILABLE(macos(10.2), ios(2.0), watchos(2.0), tvos(9.0))
    "FoundationNetworking.HTTPCookieStorage.cookies(for:)": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSHTTPCookieStorage.h: -cookiesForURL: unannotated; class 10.2/2.0/2.0/9.0
    # Added with issue 48's cookie handling; the classes' availability as above (NSHTTPCookie.h,
    # NSHTTPCookieStorage.h: API_AVAILABLE(macos(10.2), ios(2.0), watchos(2.0), tvos(9.0)), members unannotated).
    "FoundationNetworking.HTTPCookie.cookies(withResponseHeaderFields:for:)": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type]
    "FoundationNetworking.HTTPCookie.domain": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type]
    "FoundationNetworking.HTTPCookie.path": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type]
    "FoundationNetworking.HTTPCookie.isSecure": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] `secure` property, Swift name isSecure
    "FoundationNetworking.HTTPCookie.AcceptPolicy.always": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSHTTPCookieAcceptPolicy enum, NSHTTPCookieStorage.h
    "FoundationNetworking.HTTPCookie.AcceptPolicy.never": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type]
    "FoundationNetworking.HTTPCookieStorage.setCookie": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] -setCookie:
    # Courier's own Set-Cookie rules (CookieJar): NSHTTPCookie.h's property keys are
    # `FOUNDATION_EXPORT NSHTTPCookiePropertyKey const` without their own annotation (the typedef
    # NS_TYPED_EXTENSIBLE_ENUM gives the Swift init(_:)), the classes' members likewise.
    "FoundationNetworking.HTTPCookie.AcceptPolicy.onlyFromMainDocumentDomain": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type]
    "FoundationNetworking.HTTPCookie.expiresDate": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] @property expiresDate
    "FoundationNetworking.HTTPCookie.init(properties:)": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] -initWithProperties:
    "FoundationNetworking.HTTPCookie.name": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type]
    "FoundationNetworking.HTTPCookie.value": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type]
    "FoundationNetworking.HTTPCookiePropertyKey.init(_:)": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NS_TYPED_EXTENSIBLE_ENUM
    "FoundationNetworking.HTTPCookiePropertyKey.discard": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSHTTPCookieDiscard
    "FoundationNetworking.HTTPCookiePropertyKey.domain": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSHTTPCookieDomain
    "FoundationNetworking.HTTPCookiePropertyKey.expires": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSHTTPCookieExpires
    "FoundationNetworking.HTTPCookiePropertyKey.name": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSHTTPCookieName
    "FoundationNetworking.HTTPCookiePropertyKey.originURL": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSHTTPCookieOriginURL
    "FoundationNetworking.HTTPCookiePropertyKey.path": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSHTTPCookiePath
    "FoundationNetworking.HTTPCookiePropertyKey.secure": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSHTTPCookieSecure
    "FoundationNetworking.HTTPCookiePropertyKey.value": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSHTTPCookieValue
    "FoundationNetworking.HTTPCookieStorage.cookies": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] @property cookies
    "FoundationNetworking.HTTPCookieStorage.deleteCookie": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] -deleteCookie:
    "FoundationNetworking.HTTPURLResponse.init(url:statusCode:httpVersion:headerFields:)": ((10, 7), (5, 0), (9, 0), (2, 0)),  # [direct] NSURLResponse.h API_AVAILABLE(macos(10.7), ios(5.0), watchos(2.0), tvos(9.0))
    "FoundationNetworking.HTTPURLResponse.statusCode": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] unannotated; NSHTTPURLResponse API_AVAILABLE(macos(10.2), ios(2.0), watchos(2.0), tvos(9.0))
    "FoundationNetworking.HTTPURLResponse.value(forHTTPHeaderField:)": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [direct] NSURLResponse.h API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0))
    "FoundationNetworking.NSURLRequest.CachePolicy.reloadIgnoringLocalCacheData": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSURLRequest.h: enum unannotated; NSURLRequest API_AVAILABLE(macos(10.2), ios(2.0), watchos(2.0), tvos(9.0))
    "FoundationNetworking.URLAuthenticationChallenge.protectionSpace": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSURLAuthenticationChallenge API_AVAILABLE(macos(10.2), ios(2.0), watchos(2.0), tvos(9.0))
    "FoundationNetworking.URLCache.StoragePolicy.notAllowed": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSURLCache.h: NSURLCacheStoragePolicy unannotated; NSCachedURLResponse/NSURLCache API_AVAILABLE(macos(10.2), ios(2.0), ...)
    "FoundationNetworking.URLProtectionSpace.authenticationMethod": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSURLProtectionSpace API_AVAILABLE(macos(10.2), ios(2.0), watchos(2.0), tvos(9.0))
    "FoundationNetworking.URLProtectionSpace.host": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] same class annotation
    "FoundationNetworking.URLProtocol.client": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [direct] doc page urlprotocol/client: macOS 10.2, iOS 2.0, tvOS 9.0, watchOS 2.0 (header unannotated)
    "FoundationNetworking.URLProtocol.init(request:cachedResponse:client:)": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [direct] doc page: macOS 10.2, iOS 2.0, tvOS 9.0, watchOS 2.0
    "FoundationNetworking.URLProtocol.request": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] unannotated; URLProtocol documented from macOS 10.2/iOS 2.0
    "FoundationNetworking.URLProtocol.task": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [direct] NSURLProtocol.h API_AVAILABLE(macos(10.10), ios(8.0), watchos(2.0), tvos(9.0))
    "FoundationNetworking.URLProtocolClient.urlProtocol(_:didFailWithError:)": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] protocol URLProtocolClient doc page macOS 10.2/iOS 2.0/tvOS 9.0/watchOS 2.0
    "FoundationNetworking.URLProtocolClient.urlProtocol(_:didLoad:)": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] URLProtocolClient protocol
    "FoundationNetworking.URLProtocolClient.urlProtocol(_:didReceive:cacheStoragePolicy:)": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] URLProtocolClient protocol
    "FoundationNetworking.URLProtocolClient.urlProtocolDidFinishLoading": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [direct] doc page urlProtocolDidFinishLoading(_:): macOS 10.2, iOS 2.0, tvOS 9.0, watchOS 2.0
    "FoundationNetworking.URLRequest.allHTTPHeaderFields": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] URLRequest.swift overlay, unannotated (NSURLRequest itself 10.2/2.0)
    "FoundationNetworking.URLRequest.cachePolicy": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [direct] doc page urlrequest/cachepolicy-swift.property: iOS 8.0, macOS 10.10, tvOS 9.0, watchOS 2.0
    "FoundationNetworking.URLRequest.httpBody": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] URLRequest.swift, unannotated
    "FoundationNetworking.URLRequest.httpBodyStream": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] URLRequest.swift, unannotated
    "FoundationNetworking.URLRequest.httpMethod": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] URLRequest.swift, unannotated
    "FoundationNetworking.URLRequest.init(url:cachePolicy:timeoutInterval:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [direct] doc page: iOS 8.0, macOS 10.10, tvOS 9.0, watchOS 2.0
    "FoundationNetworking.URLRequest.setValue(_:forHTTPHeaderField:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] URLRequest.swift, unannotated
    "FoundationNetworking.URLRequest.value(forHTTPHeaderField:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] URLRequest.swift, unannotated
    "FoundationNetworking.URLRequest.timeoutInterval": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] URLRequest.swift, unannotated
    "FoundationNetworking.URLRequest.url": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] URLRequest.swift, unannotated
    "FoundationNetworking.URLResponse.expectedContentLength": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] NSURLResponse API_AVAILABLE(macos(10.2), ios(2.0), watchos(2.0), tvos(9.0))
    "FoundationNetworking.URLResponse.url": ((10, 2), (2, 0), (9, 0), (2, 0)),  # [type] same class annotation

    # ---------------- FoundationNetworking: URLSession (NSURLSession.h, MacOSX12.3 SDK; Foundation.swiftinterface) ----------------
    "FoundationNetworking.URLSession.AuthChallengeDisposition.cancelAuthenticationChallenge": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] NSURLSessionAuthChallengeDisposition API_AVAILABLE(macos(10.9), ios(7.0), watchos(2.0), tvos(9.0))
    "FoundationNetworking.URLSession.AuthChallengeDisposition.performDefaultHandling": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] enum annotation
    "FoundationNetworking.URLSession.AuthChallengeDisposition.useCredential": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] enum annotation
    "FoundationNetworking.URLSession.ResponseDisposition.allow": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] NSURLSessionResponseDisposition API_AVAILABLE(macos(10.9), ios(7.0), watchos(2.0), tvos(9.0))
    "FoundationNetworking.URLSession.data(from:delegate:)": ((12, 0), (15, 0), (15, 0), (8, 0)),  # [direct] Foundation.swiftinterface: @available(macOS 12.0, iOS 15.0, watchOS 8.0, tvOS 15.0, *) extension URLSession { func data(from:delegate:) async throws }
    "FoundationNetworking.URLSession.dataTask(with:)": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] -dataTaskWithRequest: / -dataTaskWithURL: unannotated; NSURLSession API_AVAILABLE(macos(10.9), ios(7.0), watchos(2.0), tvos(9.0))
    "FoundationNetworking.URLSession.finishTasksAndInvalidate()": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] NSURLSession class annotation
    "FoundationNetworking.URLSession.init(configuration:)": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] +sessionWithConfiguration: unannotated; class annotation
    "FoundationNetworking.URLSession.init(configuration:delegate:delegateQueue:)": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] +sessionWithConfiguration:delegate:delegateQueue: unannotated; class annotation
    "FoundationNetworking.URLSessionConfiguration.copy()": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] NSURLSessionConfiguration <NSCopying> API_AVAILABLE(macos(10.9), ios(7.0), watchos(2.0), tvos(9.0))
    "FoundationNetworking.URLSessionConfiguration.default": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] defaultSessionConfiguration unannotated
    "FoundationNetworking.URLSessionConfiguration.ephemeral": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] ephemeralSessionConfiguration unannotated
    "FoundationNetworking.URLSessionConfiguration.httpAdditionalHeaders": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated property
    "FoundationNetworking.URLSessionConfiguration.httpCookieStorage": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated property
    "FoundationNetworking.URLSessionConfiguration.httpCookieAcceptPolicy": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated property
    "FoundationNetworking.URLSessionConfiguration.httpMaximumConnectionsPerHost": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated property
    "FoundationNetworking.URLSessionConfiguration.httpShouldSetCookies": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated property
    "FoundationNetworking.URLSessionConfiguration.identifier": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated property (only +backgroundSessionConfigurationWithIdentifier: is 10.10/8.0)
    "FoundationNetworking.URLSessionConfiguration.protocolClasses": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated property
    "FoundationNetworking.URLSessionConfiguration.timeoutIntervalForRequest": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated property
    "FoundationNetworking.URLSessionConfiguration.urlCache": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated property
    "FoundationNetworking.URLSessionConfiguration.urlCredentialStorage": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated property
    "FoundationNetworking.URLSessionTask.cancel()": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] NSURLSessionTask API_AVAILABLE(macos(10.9), ios(7.0), watchos(2.0), tvos(9.0))
    "FoundationNetworking.URLSessionTask.currentRequest": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated property
    "FoundationNetworking.URLSessionTask.originalRequest": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated property
    "FoundationNetworking.URLSessionTask.resume()": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated method
    "FoundationNetworking.URLSessionTask.suspend()": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated method
    "FoundationNetworking.URLSessionTask.taskIdentifier": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] unannotated property

    # ---------------- FoundationXML: XMLParser (NSXMLParser.h 2017 SDK; Apple docs) ----------------
    "FoundationXML.XMLParser.abortParsing()": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] NSXMLParser.h unannotated (class too); docs list XMLParser members macOS 10.0/iOS 2.0/tvOS 9.0/watchOS 2.0
    "FoundationXML.XMLParser.columnNumber": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] unannotated (NSXMLParserLocatorAdditions)
    "FoundationXML.XMLParser.delegate": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] unannotated
    "FoundationXML.XMLParser.init(data:)": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] -initWithData: unannotated
    "FoundationXML.XMLParser.lineNumber": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] unannotated
    "FoundationXML.XMLParser.parse()": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] unannotated
    "FoundationXML.XMLParser.parserError": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] unannotated
    "FoundationXML.XMLParser.shouldProcessNamespaces": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] unannotated
    "FoundationXML.XMLParser.shouldReportNamespacePrefixes": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [type] unannotated
    "FoundationXML.XMLParser.shouldResolveExternalEntities": ((10, 0), (2, 0), (9, 0), (2, 0)),  # [direct] doc page: iOS 2.0, macOS 10.0, tvOS 9.0, watchOS 2.0 (header unannotated)
    "FoundationNetworking.URLRequest.addValue(_:forHTTPHeaderField:)": ((10, 10), (8, 0), (9, 0), (2, 0)),  # [ovl] URLRequest.swift overlay, unannotated (NSMutableURLRequest -addValue:forHTTPHeaderField: 10.2/2.0)
    "FoundationNetworking.URLSession.webSocketTask(with:)": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [direct] NSURLSession.h -webSocketTaskWithRequest: API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0))
    "FoundationNetworking.URLSessionTask.response": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] NSURLSessionTask.response unannotated; NSURLSessionTask API_AVAILABLE(macos(10.9), ios(7.0), watchos(2.0), tvos(9.0))
    "FoundationNetworking.URLSessionWebSocketTask.CloseCode.goingAway": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] NSURLSessionWebSocketCloseCode API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0))
    "FoundationNetworking.URLSessionWebSocketTask.CloseCode.init(rawValue:)": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] NSURLSessionWebSocketCloseCode API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0))
    "FoundationNetworking.URLSessionWebSocketTask.CloseCode.invalid": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] NSURLSessionWebSocketCloseCode API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0))
    "FoundationNetworking.URLSessionWebSocketTask.CloseCode.messageTooBig": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] NSURLSessionWebSocketCloseCode API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0))
    "FoundationNetworking.URLSessionWebSocketTask.CloseCode.normalClosure": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] NSURLSessionWebSocketCloseCode API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0))
    "FoundationNetworking.URLSessionWebSocketTask.CloseCode.rawValue": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] NSURLSessionWebSocketCloseCode API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0))
    "FoundationNetworking.URLSessionWebSocketTask.Message.data": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] Foundation.swiftinterface: @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *) enum URLSessionWebSocketTask.Message
    "FoundationNetworking.URLSessionWebSocketTask.Message.string": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] Foundation.swiftinterface: @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *) enum URLSessionWebSocketTask.Message
    "FoundationNetworking.URLSessionWebSocketTask.cancel()": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] inherited -[NSURLSessionTask cancel], NSURLSessionTask 10.9/7.0/9.0/2.0
    "FoundationNetworking.URLSessionWebSocketTask.cancel(with:reason:)": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] NSURLSessionWebSocketTask API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0)); the async send/receive are its -sendMessage:/-receiveMessageWithCompletionHandler: imported as async
    "FoundationNetworking.URLSessionWebSocketTask.closeCode": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] NSURLSessionWebSocketTask API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0)); the async send/receive are its -sendMessage:/-receiveMessageWithCompletionHandler: imported as async
    "FoundationNetworking.URLSessionWebSocketTask.closeReason": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] NSURLSessionWebSocketTask API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0)); the async send/receive are its -sendMessage:/-receiveMessageWithCompletionHandler: imported as async
    "FoundationNetworking.URLSessionWebSocketTask.maximumMessageSize": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] NSURLSessionWebSocketTask API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0)); the async send/receive are its -sendMessage:/-receiveMessageWithCompletionHandler: imported as async
    "FoundationNetworking.URLSessionWebSocketTask.receive()": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] NSURLSessionWebSocketTask API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0)); the async send/receive are its -sendMessage:/-receiveMessageWithCompletionHandler: imported as async
    "FoundationNetworking.URLSessionWebSocketTask.resume()": ((10, 9), (7, 0), (9, 0), (2, 0)),  # [type] inherited -[NSURLSessionTask resume], NSURLSessionTask 10.9/7.0/9.0/2.0
    "FoundationNetworking.URLSessionWebSocketTask.send": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] NSURLSessionWebSocketTask API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0)); the async send/receive are its -sendMessage:/-receiveMessageWithCompletionHandler: imported as async
    "FoundationNetworking.URLSessionWebSocketTask.sendPing(pongReceiveHandler:)": ((10, 15), (13, 0), (13, 0), (6, 0)),  # [type] NSURLSessionWebSocketTask API_AVAILABLE(macos(10.15), ios(13.0), watchos(6.0), tvos(13.0)); the async send/receive are its -sendMessage:/-receiveMessageWithCompletionHandler: imported as async
}

# UNRESOLVED:
#   (none) - every key has a value. Weakest evidence: the [base?] keys (NSEnumerator.nextObject(), NSError.code,
#   NSNumber.int64Value, NSObject.init()) whose headers were not opened, and the [ovl] keys marked
#   "not individually looked up" (CharacterSet.*, Error.localizedDescription, ObjCBool.boolValue); all are far
#   below any current deployment minimum.
#
# ABOVE MINIMUM (introduced after macOS 13.0 / iOS 16.0 / tvOS 16.0 / watchOS 9.0):
#   (none)
#   Highest values, double-checked:
#     FoundationNetworking.URLSession.data(from:delegate:)  macOS 12.0 / iOS 15.0 / tvOS 15.0 / watchOS 8.0
#       (read directly in the iOS 15.4 SDK Foundation.swiftinterface: @available(macOS 12.0, iOS 15.0, watchOS 8.0, tvOS 15.0, *))
#     Foundation.FileHandle.read(upToCount:) / write(contentsOf:)  macOS 10.15.4 / iOS 13.4 / tvOS 13.4 / watchOS 6.2 (Apple docs)
#   Caveat: if `s.contains(x)` ever resolves to the standard library's _StringProcessing Collection.contains(_:)
#   instead of Foundation's StringProtocol.contains, that overload is @available(SwiftStdlib 5.7) =
#   macOS 13.0 / iOS 16.0 / tvOS 16.0 / watchOS 9.0 (from memory, not looked up here).
