// The pipeline's public API — middleware, request signers, transports — speaks
// swift-http-types' `HTTPRequest`, `HTTPResponse` and `HTTPFields`. Re-exporting the
// module means `import Courier` is enough to write the middleware and signers the guides
// show, without a second import and a package dependency on swift-http-types.
@_exported public import HTTPTypes
