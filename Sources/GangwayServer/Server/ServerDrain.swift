import Logging
import ServiceLifecycle

/// The first of the server's services to hear that it must stop (the last in its service
/// group, which stops them in reverse): it marks the server not ready
/// (``ServerReadiness``), then lets it go on serving for ``delay``, so a load balancer
/// polling `/health/ready` takes it out of rotation before its listener closes. Then the
/// devices waiting for a change are answered at once (``SetWatch/endWaits()``), and the
/// HTTP server stops taking connections and finishes the requests in flight: a wait of a
/// sync would otherwise hold the stop for as long as it was asked to last.
struct ServerDrain: Service {
    let readiness: ServerReadiness
    let delay: Duration
    /// The waits of the syncs in flight.
    let waits: SetWatch
    /// Where the stop's steps are said, so an operator sees why requests end.
    let logger: Logger

    func run() async throws {
        // Until the group is told to stop; cancelled, it ends at once.
        try? await gracefulShutdown()
        readiness.beginDraining()
        guard !Task.isCancelled else { return waits.endWaits() }
        logger.notice(
            "Stopping: /health/ready answers 503 while the server goes on serving for its drain",
            metadata: ["drain_seconds": "\(delay.components.seconds)"]
        )
        if delay > .zero { try? await Task.sleep(for: delay) }
        let waiting = waits.waiting
        waits.endWaits()
        logger.notice(
            "Stopping: no new connections; the requests in flight finish within the grace period",
            metadata: ["syncs_answered": "\(waiting)"]
        )
    }
}
