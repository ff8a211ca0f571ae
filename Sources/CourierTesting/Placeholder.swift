// CourierTesting: URLProtocol stubs.
