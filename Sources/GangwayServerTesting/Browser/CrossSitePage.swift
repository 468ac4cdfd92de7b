import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A page on another site, as an attacker would host one, for tests of cross-site
/// request forgery in a real browser: it serves one HTML document at `/` on loopback,
/// reached as `http://localhost:PORT/`, which a browser holds to be another site than a
/// server at `127.0.0.1`.
public enum CrossSitePage {
    /// Serves `html` while `body` runs, with the page's address.
    public static func serving<Result: Sendable>(
        _ html: String,
        _ body: (URL) async throws -> Result
    ) async throws -> Result {
        let port = Mutex<Int?>(nil)
        let router = Router()
        router.get("/") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/html; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: html))
            )
        }
        let application = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } },
            logger: Logger(label: "gangway.cross-site", factory: { _ in SwiftLogNoOpLogHandler() })
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
            guard let bound else { throw TestServerError("the cross-site page did not start") }
            return try await body(URL(string: "http://localhost:\(bound)/")!)
        }
    }
}
