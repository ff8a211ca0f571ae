/// Which secrets to hide when a request, a response, a URL or an error is printed.
///
/// A header value, query item, form field or JSON value is replaced by ``placeholder`` when its
/// name is secret: it matches the standard patterns (contains `token`, `secret`, `key`,
/// `password`, `session`, `cookie`, `authorization`…, or starts with `auth`), or is listed in
/// ``headers``, ``queryItems`` or ``formFields`` — unless it is listed in ``exposed``. A URL's
/// user-info is always hidden. ``Configuration/redaction`` applies to the client's log lines and
/// to the headers a redirect to another origin leaves behind; descriptions of values and errors
/// always use ``default``. `Documentation/Middleware.md` says how names match and what is hidden.
///
/// ```swift
/// var redaction = Redaction.default
/// redaction.headers.insert("X-Tenant")               // also hide this header
/// redaction.exposed.insert("Idempotency-Key")        // show this one, although it matches `key`
/// ```
public struct Redaction: Sendable, Equatable {
    /// Header names that are secret in addition to those the name patterns match.
    /// Default: ``defaultHeaders``.
    ///
    /// ```swift
    /// var redaction = Redaction.default
    /// redaction.headers.insert("X-Tenant")
    /// ```
    public var headers: Set<String>
    /// Query item names that are secret in addition to those the name patterns match, in
    /// URLs (query, fragment and path parameters). Default: ``defaultParameterNames``.
    ///
    /// ```swift
    /// var redaction = Redaction.default
    /// redaction.queryItems.insert("otp")
    /// ```
    public var queryItems: Set<String>
    /// Field names of `application/x-www-form-urlencoded` bodies and keys of JSON bodies that
    /// are secret in addition to those the name patterns match. Default:
    /// ``defaultParameterNames``.
    ///
    /// ```swift
    /// var redaction = Redaction.default
    /// redaction.formFields.insert("pin")
    /// ```
    public var formFields: Set<String>
    /// The patterns that make a header, query item, form field or JSON key secret whatever the
    /// lists say: ``NamePatterns/standard``, or none for ``disabled``.
    package var namePatterns: NamePatterns
    /// Names that are never secret, whatever the patterns and the lists say: headers, query
    /// items, form fields and JSON keys alike, compared like the lists. Default: empty.
    ///
    /// Exposing a header also lets it follow a redirect to another origin, since transports
    /// strip what ``isSecret(headerName:)`` calls secret.
    ///
    /// ```swift
    /// var redaction = Redaction.default
    /// redaction.exposed = ["Idempotency-Key", "token_type"]
    /// ```
    public var exposed: Set<String>

    /// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`,
    /// `X-Auth-Token`. The standard patterns match them all; they are listed so that they stay
    /// secret with other name patterns.
    ///
    /// ```swift
    /// let redaction = Redaction(headers: Redaction.defaultHeaders.union(["X-Tenant"]))
    /// ```
    public static let defaultHeaders: Set<String> = [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Auth-Token",
    ]

    /// The OAuth 2 and common API-key parameter names: `access_token`, `refresh_token`,
    /// `id_token`, `token`, `subject_token`, `actor_token`, `client_secret`, `client_assertion`,
    /// `assertion`, `code`, `code_verifier`, `password`, `api_key` (which also matches `apiKey`
    /// and `api-key`), `apikey`, `secret`, `sig` (Azure SAS signatures). `code`, `assertion` and
    /// `sig` are the ones no standard pattern matches.
    ///
    /// ```swift
    /// let redaction = Redaction(queryItems: Redaction.defaultParameterNames.subtracting(["code"]))
    /// ```
    public static let defaultParameterNames: Set<String> = [
        "access_token", "refresh_token", "id_token", "token", "subject_token", "actor_token",
        "client_secret", "client_assertion", "assertion", "code", "code_verifier", "device_code", "password",
        "api_key", "apikey", "secret", "sig",
    ]

    /// The default lists (``defaultHeaders``, and ``defaultParameterNames`` for query items and
    /// body fields), the standard name patterns, nothing exposed.
    ///
    /// ```swift
    /// print(request.curlCommand(redaction: .default))   // `?code=<redacted>&state=1`
    /// ```
    public static let `default` = Redaction()

    /// A redaction that hides nothing: no lists, no patterns. For local debugging only; never
    /// give it to a client whose logs leave the machine, nor to one that follows redirects to
    /// other origins (its transport would strip only the headers it always strips, such as
    /// `Authorization` and `Cookie`, and let an `X-Api-Key` through).
    ///
    /// ```swift
    /// print(request.curlCommand(redaction: .disabled))   // every header and body as sent
    /// ```
    public static let disabled = Redaction(
        headers: [], queryItems: [], formFields: [], namePatterns: NamePatterns())

    /// What replaces a hidden value: `<redacted>`.
    ///
    /// ```swift
    /// #expect(text.contains(Redaction.placeholder))
    /// ```
    public static let placeholder = "<redacted>"

    /// The most body bytes ``TransportRequest/curlCommand(redaction:)`` shows: 4 KiB. A longer
    /// body is replaced by a comment with its size.
    static let bodyPreviewLimit = 4096

    /// Creates a redaction with the standard name patterns; each list defaults to the standard
    /// one.
    ///
    /// ```swift
    /// let strict = Redaction(headers: Redaction.defaultHeaders.union(["X-Tenant"]))
    /// ```
    public init(
        headers: Set<String> = Redaction.defaultHeaders,
        queryItems: Set<String> = Redaction.defaultParameterNames,
        formFields: Set<String> = Redaction.defaultParameterNames,
        exposed: Set<String> = []
    ) {
        self.init(headers: headers, queryItems: queryItems, formFields: formFields, namePatterns: .standard, exposed: exposed)
    }

    /// A redaction with other name patterns than the standard ones.
    package init(
        headers: Set<String> = Redaction.defaultHeaders,
        queryItems: Set<String> = Redaction.defaultParameterNames,
        formFields: Set<String> = Redaction.defaultParameterNames,
        namePatterns: NamePatterns,
        exposed: Set<String> = []
    ) {
        self.headers = headers
        self.queryItems = queryItems
        self.formFields = formFields
        self.namePatterns = namePatterns
        self.exposed = exposed
    }
}

extension Redaction {
    /// Whether the value of the header `headerName` must be hidden: its name matches one of the
    /// name patterns or is listed in ``headers``, and is not ``exposed``.
    ///
    /// Transports also use it to decide which headers to strip when a redirect leaves the
    /// origin: every header this calls secret stays behind.
    ///
    /// ```swift
    /// Redaction.default.isSecret(headerName: "X-Amz-Security-Token")   // true (pattern `token`)
    /// Redaction.default.isSecret(headerName: "Accept")                 // false
    /// ```
    public func isSecret(headerName: String) -> Bool {
        headerMatcher.isSecret(headerName: headerName)
    }

    /// Whether the value of the URL query item (or fragment item, or path parameter) `name`
    /// must be hidden, by the name patterns, ``queryItems`` and ``exposed``. `name` is
    /// percent-decoded first; a structured name (`user[password]`) is secret when a part is.
    ///
    /// ```swift
    /// Redaction.default.isSecret(queryItemName: "user%5Bpassword%5D")   // true
    /// Redaction.default.isSecret(queryItemName: "page")                 // false
    /// ```
    public func isSecret(queryItemName name: String) -> Bool {
        queryItemMatcher.isSecret(parameter: Self.decodedName(Substring(name)))
    }

    /// Whether the value of the form field or JSON key `name` must be hidden, by the
    /// name patterns, ``formFields`` and ``exposed``. Percent-decoded and split like
    /// ``isSecret(queryItemName:)``.
    ///
    /// <!-- guide: skip: internal API, not visible outside Courier -->
    /// ```swift
    /// Redaction.default.isSecret(fieldName: "authorization")   // true (pattern `auth…`)
    /// Redaction.default.isSecret(fieldName: "username")        // false
    /// ```
    func isSecret(fieldName name: String) -> Bool {
        fieldMatcher.isSecret(parameter: Self.decodedName(Substring(name)))
    }
}
