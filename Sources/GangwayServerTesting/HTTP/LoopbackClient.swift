import HummingbirdTesting

/// Opens one keep-alive HTTP/1.1 connection to a server on this machine (HummingbirdTesting's
/// `TestClient`, as its live framework uses) for the time of a closure.
enum LoopbackClient {
    /// Connects to `host:port`, runs `body`, then closes the connection.
    static func with<Result>(
        host: String,
        port: Int,
        _ body: (TestClient) async throws -> Result
    ) async throws -> Result {
        // A guard against a hang, not a measure: a test machine running many suites at once
        // can take tens of seconds over a large request.
        let client = TestClient(host: host, port: port, configuration: .init(timeout: .seconds(60)))
        client.connect()
        let outcome: Swift.Result<Result, any Error>
        do {
            outcome = .success(try await body(client))
        } catch {
            outcome = .failure(error)
        }
        try await client.shutdown()
        return try outcome.get()
    }
}
