/// Whether an ``Endpoint``'s method may carry a body, as a type: the body modifiers
/// (``Endpoint/json(_:encoder:)``, `form(_:options:)`, ``Endpoint/body(_:)``) exist only on
/// `Endpoint<BodyAllowed, _>`, so a body on a GET or HEAD endpoint is a compile-time error
/// rather than a failed call.
///
/// ```swift
/// let search = api.get("search").query("q", "swift")   // Endpoint<BodyForbidden, Response>
/// let gist = api.post("gists").json(newGist)           // Endpoint<BodyAllowed, Response>
/// ```
///
/// Only ``BodyForbidden`` and ``BodyAllowed`` are meant to conform.
public protocol BodyPolicy: Sendable {}

/// The ``BodyPolicy`` of GET and HEAD endpoints (``API/get(_:)``, ``API/head(_:)``): no body
/// modifier exists for them.
///
/// ```swift
/// #if false   // error: referencing instance method 'json(_:encoder:)' on 'Endpoint' requires
///             // the types 'BodyForbidden' and 'BodyAllowed' be equivalent
///     let wrong = api.get("users").json(user)
/// #endif
/// ```
public enum BodyForbidden: BodyPolicy {}

/// The ``BodyPolicy`` of every method but GET and HEAD (``API/post(_:)``, ``API/put(_:)``,
/// ``API/patch(_:)``, ``API/delete(_:)``, ``API/options(_:)``, ``API/request(method:_:)``):
/// the body modifiers exist for them.
public enum BodyAllowed: BodyPolicy {}
