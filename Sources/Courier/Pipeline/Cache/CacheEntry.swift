import Foundation
import HTTPTypes

/// One stored response: the key it was stored under, the request field values its `Vary`
/// selected, the response's status and header fields, its body, and when it was asked for and
/// received (RFC 9111 §4.2.3's `request_time` and `response_time`).
struct CacheEntry: Equatable, Sendable {
    /// The primary key: the target URI and the credential partition.
    var key: CacheKey
    /// The secondary key: the request's values of the fields the response's `Vary` names.
    var variant: CacheVariant
    /// The stored response, its header fields already stripped of what must not be stored
    /// (RFC 9111 §3.1).
    var response: HTTPResponse {
        didSet { facts = CacheResponseFacts(response, responseTime: responseTime) }
    }
    /// The content.
    var body: Data
    /// When the request that produced (or last revalidated) this response was sent.
    var requestTime: Date
    /// When that response was received.
    var responseTime: Date {
        didSet { facts = CacheResponseFacts(response, responseTime: responseTime) }
    }
    /// What every lookup reads of ``response``, parsed when it is stored or updated.
    private(set) var facts: CacheResponseFacts

    /// An entry. `reusing` gives the facts of a response whose `Cache-Control`, `ETag` and
    /// `Last-Modified` are the same as this one's (a `304`'s update that left them alone): only
    /// what depends on the other fields and on the times is read again.
    init(
        key: CacheKey, variant: CacheVariant, response: HTTPResponse, body: Data, requestTime: Date, responseTime: Date,
        reusing previous: CacheResponseFacts? = nil
    ) {
        self.key = key
        self.variant = variant
        self.response = response
        self.body = body
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.facts = CacheResponseFacts(response, responseTime: responseTime, reusing: previous)
    }

    /// The current age in seconds (RFC 9111 §4.2.3) at `now`.
    func currentAge(at now: Date) -> TimeInterval {
        CacheFreshness.currentAge(
            date: facts.date, ageValue: facts.ageValue, requestTime: requestTime, responseTime: responseTime, now: now)
    }

    /// The bytes this entry is counted as in a storage's bound: body, fields, key and variant.
    var cost: Int {
        var total = body.count + key.url.utf8.count + key.partition.utf8.count + 64
        for field in response.headerFields {
            total += field.name.rawName.utf8.count + field.value.utf8.count + 4
        }
        for value in variant.values {
            total += value.name.utf8.count + (value.value?.utf8.count ?? 0) + 4
        }
        return total
    }

    /// The key under which a storage keeps this entry beside the other variants of its URI.
    var storageKey: CacheStorageKey {
        CacheStorageKey(key: key, variant: variant)
    }
}

/// A storage's identity for an entry: the primary key and the variant.
struct CacheStorageKey: Hashable, Sendable {
    var key: CacheKey
    var variant: CacheVariant
}

/// The parts of a stored response that freshness, validation and variant selection read (RFC
/// 9111 §4), parsed once: a revalidation or a hit then parses no header.
struct CacheResponseFacts: Equatable, Sendable {
    /// The response's `Cache-Control`.
    var control: CacheControl
    /// `Date`, or the response time without a valid one (§4.2.3's `date_value`).
    var date: Date
    /// `Age` in seconds (§5.1): the first member of a list (`7200, 0` is 7200); `0` without the
    /// field; an invalid one (`-1`, `1.5`, `abc`) makes the response stale, as
    /// ``CacheControl/maximumDeltaSeconds``.
    var ageValue: Int
    /// The freshness lifetime (§4.2.1).
    var lifetime: TimeInterval
    /// The first `ETag` value, trimmed (valid or not).
    var entityTag: String?
    /// Every valid entity tag of `ETag`, trimmed, without duplicates.
    var validEntityTags: [String]
    /// The first `Last-Modified` value, trimmed (valid or not).
    var lastModified: String?
    /// Whether ``lastModified`` is a valid HTTP-date.
    var lastModifiedIsValid: Bool

    /// The seconds an `Age` value says: its first member, or, when that is not `delta-seconds`,
    /// the most `delta-seconds` can say, so that the response is stale (RFC 9111 §5.1).
    static func ageValue(_ text: String) -> Int {
        let first = text.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return CacheControl.deltaSeconds(String(first).trimmingSpaceAndTab()) ?? CacheControl.maximumDeltaSeconds
    }

    /// The facts of `response`, received at `responseTime`. `previous`, when given, holds what
    /// `Cache-Control`, `ETag` and `Last-Modified` say, which the caller knows to be unchanged.
    init(_ response: HTTPResponse, responseTime: Date, reusing previous: CacheResponseFacts? = nil) {
        let fields = response.headerFields
        // The first value of each single-valued field read here, in one pass.
        var dateText: String?
        var ageText: String?
        var expiresText: String?
        var lastModifiedText: String?
        for field in fields {
            switch field.name {
            case .date where dateText == nil: dateText = field.value
            case .age where ageText == nil: ageText = field.value
            case .expires where expiresText == nil: expiresText = field.value
            case .lastModified where lastModifiedText == nil: lastModifiedText = field.value
            default: break
            }
        }
        if let previous {
            control = previous.control
            entityTag = previous.entityTag
            validEntityTags = previous.validEntityTags
            lastModified = previous.lastModified
        } else {
            control = CacheControl(fields)
            let tags = fields[values: .eTag].map { $0.trimmingSpaceAndTab() }
            entityTag = tags.first
            var valid: [String] = []
            for tag in tags where CacheValidation.isEntityTag(tag) && !valid.contains(tag) { valid.append(tag) }
            validEntityTags = valid
            lastModified = lastModifiedText?.trimmingSpaceAndTab()
        }
        let date = dateText.flatMap { HTTPDate.parse($0.trimmingSpaceAndTab(), now: responseTime, ignoringCase: true) } ?? responseTime
        self.date = date
        ageValue = ageText.map(Self.ageValue) ?? 0
        // Read again, not reused: whether a date is valid can depend on the century
        // `responseTime` gives it.
        let lastModifiedDate = lastModified.flatMap { HTTPDate.parse($0, now: responseTime, ignoringCase: true) }
        lastModifiedIsValid = lastModifiedDate != nil
        lifetime = CacheFreshness.lifetime(
            cacheControl: control, expires: expiresText, status: response.status.code, date: date, lastModified: lastModifiedDate,
            responseTime: responseTime)
    }
}
