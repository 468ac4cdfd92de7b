import Hummingbird
import Logging
import Synchronization

/// A Hummingbird router served on a free loopback port for the length of a test's work:
/// the cross-site page, the impostor server.
enum LoopbackServer {
    /// Serves `router` while `body` runs with the port it listens on.
    static func run<Result: Sendable>(
        _ router: Router<BasicRequestContext>,
        named name: String,
        _ body: (Int) async throws -> Result
    ) async throws -> Result {
        let port = Mutex<Int?>(nil)
        let application = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } },
            logger: Logger(label: "gangway.\(name)", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await application.run() }
            defer { group.cancelAll() }
            var bound: Int?
            for _ in 0..<500 {
                bound = port.withLock { $0 }
                if bound != nil { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            guard let bound else { throw TestServerError("the \(name) server did not start") }
            return try await body(bound)
        }
    }
}
