import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The authorization code grant's browser seam for a device that has a browser but no
/// `ASWebAuthenticationSession`: it listens on `127.0.0.1` on a port the system picks,
/// builds the sign-in page's address for `http://127.0.0.1:PORT/callback` (a redirect
/// URI the server matches to a registered `http://127.0.0.1/callback` whatever the port,
/// RFC 8252 §7.3), has the address opened (a browser started, or the address printed for
/// the person), and waits for the browser to come back to it.
///
/// Only that path, with a GET, ends the wait; anything else (a favicon) is answered 404.
/// The browser is told it may close the window; the listener then closes.
public struct LoopbackBrowser: AuthorizationBrowser {
    /// The path of the redirect URI the app registered.
    public var path: String
    /// How long to wait for the browser to come back.
    public var timeout: Duration
    /// Opens the sign-in page for the person (starts a browser, or prints the address).
    public var open: @Sendable (URL) async throws -> Void

    public init(
        path: String = "/callback",
        timeout: Duration = .seconds(600),
        open: @escaping @Sendable (URL) async throws -> Void
    ) {
        self.path = path
        self.timeout = timeout
        self.open = open
    }

    /// Why the browser did not come back.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    public func authorize(
        _ page: @escaping @Sendable (_ redirectURI: String) -> URL
    ) async throws -> AuthorizationCallback {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 8)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: channel
                    )
                }
            }
        guard let port = server.channel.localAddress?.port else {
            try? await server.channel.close()
            throw Failure(description: "no loopback port to listen on")
        }
        let redirectURI = "http://127.0.0.1:\(port)\(path)"
        let path = path
        let timeout = timeout
        let open = open
        let (targets, arrived) = AsyncStream<String>.makeStream()
        let result = try await withThrowingTaskGroup(of: AuthorizationCallback?.self) { group in
            group.addTask {
                // Each connection on its own: a browser may open one it never uses.
                try await server.executeThenClose { connections in
                    try await withThrowingDiscardingTaskGroup { handlers in
                        for try await connection in connections {
                            handlers.addTask {
                                if let target = try? await Self.answer(connection, path: path) { arrived.yield(target) }
                            }
                        }
                    }
                }
                return nil
            }
            group.addTask {
                for await target in targets {
                    return AuthorizationCallback(
                        redirectURI: redirectURI,
                        url: URL(string: "http://127.0.0.1:\(port)\(target)")!
                    )
                }
                return nil
            }
            group.addTask {
                try await open(page(redirectURI))
                try await Task.sleep(for: timeout)
                return nil
            }
            let first: AuthorizationCallback?
            do {
                first = try await group.next() ?? nil
            } catch {
                group.cancelAll()
                arrived.finish()
                try? await server.channel.close()
                throw error
            }
            group.cancelAll()
            arrived.finish()
            try? await server.channel.close()
            return first
        }
        guard let result else { throw Failure(description: "nobody came back from the sign-in page in time") }
        return result
    }

    /// Answers one connection's requests; the target of the one that came to `path`.
    private static func answer(
        _ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>,
        path: String
    ) async throws -> String? {
        try await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            for try await part in inbound {
                switch part {
                case .head(let request): head = request
                case .body: continue
                case .end:
                    guard let request = head else { continue }
                    let target = request.uri
                    let matches = request.method == .GET && target.prefix { $0 != "?" } == path
                    let text =
                        matches
                        ? "<!DOCTYPE html><title>Signed in</title><p>You are signed in. Close this window and go back to the app.</p>"
                        : "<!DOCTYPE html><title>Not found</title><p>Not found.</p>"
                    let body = ByteBuffer(string: text)
                    var headers = HTTPHeaders()
                    headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
                    headers.add(name: "Content-Length", value: "\(body.readableBytes)")
                    headers.add(name: "Cache-Control", value: "no-store")
                    headers.add(name: "Connection", value: "close")
                    // The browser came back whether or not it reads the page to the end: a
                    // browser that closes the connection early has still brought the code.
                    try? await outbound.write(
                        .head(
                            HTTPResponseHead(
                                version: request.version,
                                status: matches ? .ok : .notFound,
                                headers: headers
                            )
                        )
                    )
                    try? await outbound.write(.body(.byteBuffer(body)))
                    try? await outbound.write(.end(nil))
                    return matches ? target : nil
                }
            }
            return nil
        }
    }
}
