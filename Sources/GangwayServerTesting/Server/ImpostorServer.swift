import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// A process that took the port a Gangway server used to listen on: it answers every
/// request with `200 {}` and keeps what it was sent, so a test can check that no client
/// handed it a token.
///
/// ```swift
/// try await ImpostorServer.run { impostor in
///     // point a client at impostor.url …
///     #expect(impostor.authorizations.isEmpty)
/// }
/// ```
public final class ImpostorServer: Sendable {
    /// Where it listens.
    public let url: URL
    private let log: RequestLog

    private init(url: URL, log: RequestLog) {
        self.url = url
        self.log = log
    }

    /// Every `Authorization` header it was sent.
    public var authorizations: [String] { log.authorizations.withLock { $0 } }
    /// The path of every request it answered.
    public var requestedPaths: [String] { log.paths.withLock { $0 } }

    private final class RequestLog: Sendable {
        let authorizations = Mutex<[String]>([])
        let paths = Mutex<[String]>([])
    }

    /// Listens on a free loopback port while `body` runs.
    public static func run<Result: Sendable>(_ body: (ImpostorServer) async throws -> Result) async throws -> Result {
        let log = RequestLog()
        let router = Router()
        router.middlewares.add(Recorder(log: log))
        return try await LoopbackServer.run(router, named: "impostor") { bound in
            try await body(ImpostorServer(url: URL(string: "http://127.0.0.1:\(bound)")!, log: log))
        }
    }

    private struct Recorder: RouterMiddleware {
        typealias Context = BasicRequestContext
        let log: RequestLog

        func handle(
            _ request: Request,
            context: Context,
            next: (Request, Context) async throws -> Response
        ) async throws -> Response {
            log.paths.withLock { $0.append(request.uri.path) }
            if let authorization = request.headers[.authorization] {
                log.authorizations.withLock { $0.append(authorization) }
            }
            return Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: "{}"))
            )
        }
    }
}
