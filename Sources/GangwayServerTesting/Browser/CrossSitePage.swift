import Foundation
import Hummingbird
import NIOCore

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
        let router = Router()
        router.get("/") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/html; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: html))
            )
        }
        return try await LoopbackServer.run(router, named: "cross-site") { bound in
            try await body(URL(string: "http://localhost:\(bound)/")!)
        }
    }
}
