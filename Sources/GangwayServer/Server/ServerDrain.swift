import ServiceLifecycle

/// The first of the server's services to hear that it must stop (the last in its service
/// group, which stops them in reverse): it marks the server not ready
/// (``ServerReadiness``), then lets it go on serving for ``delay``, so a load balancer
/// polling `/health/ready` takes it out of rotation before its listener closes. The HTTP
/// server then stops taking connections and finishes the requests in flight.
struct ServerDrain: Service {
    let readiness: ServerReadiness
    let delay: Duration

    func run() async throws {
        // Until the group is told to stop; cancelled, it ends at once.
        try? await gracefulShutdown()
        readiness.beginDraining()
        guard delay > .zero, !Task.isCancelled else { return }
        try? await Task.sleep(for: delay)
    }
}
