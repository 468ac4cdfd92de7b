import Hummingbird
import Logging
import NIOCore

/// The operator's metrics listener (`serve --metrics-port`): `GET /metrics`, the server's
/// figures in the Prometheus text format (``ServerMetrics/exposition()``), on an address
/// of its own, kept off the devices' (127.0.0.1 unless the operator names another), and
/// nothing else: every other path is 404. It asks no credential: who can reach the
/// address can read the figures, which name no person, device or secret.
///
/// An operator may open it wider than this machine (`--metrics-host`), so it keeps the
/// devices' listener's guards, smaller: a connection must send its request head within
/// ``headTimeout``, and it holds at most ``connections`` (``perAddress`` from one
/// address), a new one taking the place of the longest silent.
enum MetricsListener {
    static let headTimeout: TimeAmount = .seconds(10)
    static let connections = 64
    static let perAddress = 16

    /// The exposition's media type (the text format, version 0.0.4).
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    static func application(
        _ metrics: ServerMetrics,
        host: String,
        port: Int,
        logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        let router = Router()
        router.get("/metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: contentType, .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition()))
            )
        }
        let count = ConnectionCap.Count(limit: connections, perAddress: perAddress)
        return Application(
            router: router,
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [ConnectionCap(count), RequestHeadTimeout(headTimeout)],
                    idleTimeout: .seconds(60)
                )
            ),
            configuration: .init(address: .hostname(host, port: port), serverName: "gangway-metrics"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger
        )
    }
}
