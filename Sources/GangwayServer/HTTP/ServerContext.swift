import Hummingbird
import NIOCore

/// The request context of Gangway's router: Hummingbird's core context plus the peer's
/// address.
public struct ServerContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// Whether the request is a HEAD, answered as its GET without the body
    /// (``GatewayResponder``): what the metrics, traces and logs then say it was.
    public internal(set) var isHead = false

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Bodies are limited by ``GatewayMiddleware``; this is Hummingbird's own cap.
    public var maxUploadSize: Int { GatewayMiddleware.maximumBodySize }
}
