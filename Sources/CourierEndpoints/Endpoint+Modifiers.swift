public import Courier

extension Endpoint {
    /// This endpoint with the header `name: value`, in place of any it has of that name
    /// (compared case-insensitively, the API's included). The client's own headers of that name
    /// are replaced too (see `Requestable.headerItems`).
    ///
    /// ```swift
    /// api.get("user").header("Accept", "application/vnd.github+json").header("X-GitHub-Api-Version", "2022-11-28")
    /// ```
    ///
    /// A name that is not an RFC 9110 token, or a value with control characters (CR, LF…), fails
    /// the call with `InvalidRequest.invalidHeaderName(_:)` or
    /// `InvalidRequest.invalidHeaderValue(name:)` when it is resumed; nothing is sent.
    public func header(_ name: String, _ value: String) -> Self {
        headers([HeaderItem(name: name, value: value)])
    }

    /// This endpoint with `items`, each in place of the headers it has of that name; a name
    /// repeated within `items` is sent as many times.
    ///
    /// ```swift
    /// api.get("feed").headers([.accept("application/atom+xml"), HeaderItem(name: "Cache-Control", value: "no-cache")])
    /// ```
    public func headers(_ items: [HeaderItem]) -> Self {
        with { parts in
            let replaced = Set(items.map { $0.name.lowercased() })
            parts.headerItems.removeAll { replaced.contains($0.name.lowercased()) }
            parts.headerItems += items
        }
    }

    /// This endpoint with its own use of `Configuration.cache`.
    ///
    /// ```swift
    /// api.get("avatars", login).cachePolicy(.returnCachedElseLoad)
    /// ```
    public func cachePolicy(_ policy: CachePolicy) -> Self {
        with { $0.cachePolicy = policy }
    }

    /// This endpoint with a time limit of its own for the whole request, in place of the client's
    /// `Configuration.timeout`.
    ///
    /// ```swift
    /// api.get("export").timeout(.seconds(120))
    /// ```
    ///
    /// A duration that is not positive fails the call with `InvalidRequest.invalidTimeout(_:)`.
    public func timeout(_ duration: Duration) -> Self {
        with { $0.timeout = duration }
    }

    /// This endpoint with the client's authentication applied (`true`) or not (`false`: a public
    /// resource, a login, a health check), whatever its ``API`` says.
    ///
    /// ```swift
    /// let status = api.get("status").authorized(false)
    /// ```
    public func authorized(_ requiresAuthorization: Bool) -> Self {
        with { $0.requiresAuthorization = requiresAuthorization }
    }

    /// This endpoint with `stages` run for its calls only, after those it has and inside the
    /// client's `Configuration.middleware` (see `Middleware` for the order).
    ///
    /// ```swift
    /// api.post("uploads").body(.file(report)).middleware(UploadAudit())
    /// ```
    public func middleware(_ stages: any Middleware...) -> Self {
        with { $0.middleware += stages }
    }

    /// This endpoint with `constraints` to wait for before each of its calls is built, after
    /// those it has (see `Requestable.constraints`).
    ///
    /// ```swift
    /// api.get("cart").constraints(Session.active)
    /// ```
    public func constraints(_ constraints: Constraint...) -> Self {
        with { $0.constraints += constraints }
    }

    /// This endpoint with `statusCodes` counted as success, in place of 200–299: any other fails
    /// the call with `CourierError.response(_:)`.
    ///
    /// ```swift
    /// api.get("cache", key).accepting(statusCodes: [200, 304])
    /// ```
    public func accepting(statusCodes: Set<Int>) -> Self {
        with { $0.acceptableStatusCodes = statusCodes }
    }

    /// This endpoint reading at most `bytes` of response body (after decompression), in place of
    /// `Configuration.maximumResponseSize`; `Int.max` for no limit.
    ///
    /// ```swift
    /// api.get("export").maximumResponseSize(512 << 20)
    /// ```
    public func maximumResponseSize(_ bytes: Int) -> Self {
        with { $0.maximumResponseSize = bytes }
    }

    /// This endpoint decoding its responses with `decoder`, whatever their `Content-Type` (see
    /// `Requestable.responseDecoder`).
    ///
    /// ```swift
    /// api.get("users").returning([User].self).decoder(JSONBodyDecoder(snakeCaseDecoder))
    /// ```
    public func decoder(_ decoder: any ResponseBodyDecoder) -> Self {
        with { $0.responseDecoder = decoder }
    }
}
