internal import Foundation
public import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if os(Linux)
    import AsyncHTTPClient
    import NIOCore
    import OpenAPIAsyncHTTPClient
#endif

/// The HTTP transport a client of the server uses when given none.
public enum ServiceTransport {
    /// The transport, giving up on a silent server after `timeout`: URLSession on Apple
    /// platforms; AsyncHTTPClient (SwiftNIO) on Linux, where URLSession goes through
    /// libcurl and Dispatch sources and costs about a third of the CPU of an upload of
    /// pending changes (measured with `perf` on the offline benchmark).
    ///
    /// Both fail at once on a server that refuses the connection (the device is then
    /// offline, and says so), and neither follows a redirect.
    public static func standard(timeout: Duration = .seconds(20)) -> any ClientTransport {
        #if os(Linux)
            let nanoseconds =
                timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
            return AsyncHTTPClientTransport(
                configuration: .init(client: httpClient, timeout: .nanoseconds(nanoseconds))
            )
        #else
            return urlSession(timeout: timeout)
        #endif
    }

    /// A URLSession transport that gives up on a silent server after `timeout`.
    public static func urlSession(timeout: Duration = .seconds(20)) -> any ClientTransport {
        let configuration = URLSessionConfiguration.ephemeral
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        return URLSessionTransport(configuration: .init(session: URLSession(configuration: configuration)))
    }

    #if os(Linux)
        /// One client for the process, on SwiftNIO's shared event loops, never shut down (as
        /// AsyncHTTPClient's own `HTTPClient.shared`), but failing at once when a connection
        /// is refused: the shared one tries again until the request's deadline.
        private static let httpClient: HTTPClient = {
            var configuration = HTTPClient.Configuration.singletonConfiguration
            configuration.connectionPool.retryConnectionEstablishment = false
            configuration.redirectConfiguration = .disallow
            configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
            return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        }()
    #endif
}
