import Foundation
import GangwayServices
import NIOCore
import NIOPosix
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("The loopback browser: the code arrives, and the wait ends, whatever else the browser opened")
struct LoopbackBrowserTests {
    /// Opens a connection to `port` and sends nothing on it, as a browser that connects
    /// ahead of a request it never makes; the connection stays open until the end.
    static func idleConnection(to port: Int) async throws -> any Channel {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port).get()
    }

    /// `GET address` on its own connection, for its status.
    static func status(of address: URL) async throws -> Int {
        let configuration = URLSessionConfiguration.ephemeral
        let session = URLSession(configuration: configuration)
        let (_, response) = try await session.data(from: address)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test(
        "a connection opened and left idle does not hold the sign-in once the browser came back",
        .timeLimit(.minutes(1))
    )
    func idleConnectionLeftOpen() async throws {
        let idle = Mutex<(any Channel)?>(nil)
        let browser = LoopbackBrowser(timeout: .seconds(30)) { page in
            let items = URLComponents(url: page, resolvingAgainstBaseURL: false)?.queryItems ?? []
            let redirect = try #require(items.first { $0.name == "redirect_uri" }?.value.flatMap(URL.init(string:)))
            let port = try #require(redirect.port)
            let channel = try await Self.idleConnection(to: port)
            idle.withLock { $0 = channel }
            #expect(try await Self.status(of: URL(string: "http://127.0.0.1:\(port)/favicon.ico")!) == 404)
            #expect(
                try await Self.status(of: URL(string: "http://127.0.0.1:\(port)/callback?code=c-1&state=s")!) == 200
            )
        }
        let callback = try await browser.authorize { redirectURI in
            URL(string: "https://sign-in.example/authorize?redirect_uri=\(redirectURI)")!
        }
        #expect(callback.url.query == "code=c-1&state=s")
        #expect(callback.redirectURI.hasSuffix("/callback"))
        try? await idle.withLock { $0 }?.close()
    }
}
