import Foundation
import Logging
import ServiceLifecycle

/// Runs a ``MobileServicesServer`` as a service in this process and owns its lifecycle:
/// idle, starting, listening, stopping, finished.
///
/// ``run()`` is the long-running work, for a task group or a `ServiceGroup` of the
/// caller's; ``port()`` waits until the server listens; ``stop()`` starts a graceful
/// shutdown, after which ``run()`` returns once the requests in flight are answered.
/// ``serving(_:)`` does all three around a closure. A host runs once.
///
/// ```swift
/// let host = ServerHost(server: server)
/// try await host.serving { port in
///     print("listening on \(port)")
/// }
/// ```
///
/// It runs the server's ``MobileServicesServer/services(onListening:)``: the storage's
/// connection pool, if any, and the HTTP server. Unlike
/// ``MobileServicesServer/run(onListening:)`` it handles no signal: the process
/// embedding it decides when the server stops.
public actor ServerHost {
    private enum State {
        /// Not run yet; callers of ``port()`` wait.
        case idle(waiters: [CheckedContinuation<Int, any Error>])
        /// ``run()`` started the service group; it does not listen yet.
        case starting(ServiceGroup, waiters: [CheckedContinuation<Int, any Error>])
        /// The server listens on `port`.
        case listening(ServiceGroup, port: Int)
        /// Graceful shutdown was asked for; ``run()`` has not returned yet.
        case stopping(ServiceGroup)
        /// ``run()`` returned, or the host stopped before it ran.
        case finished
    }

    /// The server this host runs.
    public nonisolated let server: MobileServicesServer
    private let logger: Logger
    private var state = State.idle(waiters: [])

    /// A host for `server`; nothing runs before ``run()``.
    public init(server: MobileServicesServer, logger: Logger = Logger(label: "gangway.server.host")) {
        self.server = server
        self.logger = logger
    }

    /// Serves until ``stop()``, then answers the requests in flight and returns; throws
    /// if the server cannot listen (its port is taken) or fails while serving.
    public func run() async throws {
        let group: ServiceGroup
        switch state {
        case .idle(let waiters):
            let services: [any Service]
            do {
                services = try server.services { port in await self.didListen(port) }
            } catch {
                // Whoever waits for the port hears of it, as they do of a failed start.
                finish(failed: true)
                throw error
            }
            // No signal handling: the process embedding the server decides when it stops.
            group = ServiceGroup(services: services, gracefulShutdownSignals: [], logger: logger)
            state = .starting(group, waiters: waiters)
            logger.debug("server host starting", metadata: ["port": "\(server.configuration.port)"])
        case .starting, .listening, .stopping:
            throw ServerHostError.alreadyRunning
        case .finished:
            throw ServerHostError.finished
        }
        do {
            try await group.run()
        } catch {
            finish(failed: true)
            throw error
        }
        finish(failed: false)
    }

    /// The port the server listens on; waits while it starts. Throws once it stops or if
    /// it never listened.
    public func port() async throws -> Int {
        switch state {
        case .idle(let waiters):
            return try await withCheckedThrowingContinuation { continuation in
                state = .idle(waiters: waiters + [continuation])
            }
        case .starting(let group, let waiters):
            return try await withCheckedThrowingContinuation { continuation in
                state = .starting(group, waiters: waiters + [continuation])
            }
        case .listening(_, let port):
            return port
        case .stopping, .finished:
            throw ServerHostError.notListening
        }
    }

    /// Where the server listens, as a URL a client on this machine reaches.
    public func url() async throws -> URL {
        guard let url = server.configuration.localURL(boundPort: try await port()) else {
            throw ServerHostError.notListening
        }
        return url
    }

    /// Starts a graceful shutdown: the server stops accepting connections, answers the
    /// requests in flight, and ``run()`` returns. Stopping a host that never ran finishes it.
    public func stop() async {
        switch state {
        case .idle(let waiters):
            state = .finished
            logger.debug("server host finished before it ran")
            for waiter in waiters { waiter.resume(throwing: ServerHostError.notListening) }
        case .starting(let group, let waiters):
            state = .stopping(group)
            logger.debug("server host stopping before it listened")
            for waiter in waiters { waiter.resume(throwing: ServerHostError.notListening) }
            await group.triggerGracefulShutdown()
        case .listening(let group, let port):
            state = .stopping(group)
            logger.debug("server host stopping", metadata: ["port": "\(port)"])
            await group.triggerGracefulShutdown()
        case .stopping, .finished:
            break
        }
    }

    /// Serves while `body` runs with the bound port, then stops and waits for the
    /// requests in flight, whether `body` returned or threw.
    public nonisolated func serving<Result: Sendable>(_ body: (Int) async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.run() }
            let outcome: Swift.Result<Result, any Error>
            do {
                outcome = .success(try await body(try await port()))
            } catch {
                outcome = .failure(error)
            }
            await stop()
            // A server that could not start throws its own error here, before `body`'s.
            try await group.waitForAll()
            return try outcome.get()
        }
    }

    private func didListen(_ port: Int) {
        switch state {
        case .starting(let group, let waiters):
            state = .listening(group, port: port)
            logger.debug("server host listening", metadata: ["port": "\(port)"])
            for waiter in waiters { waiter.resume(returning: port) }
        case .stopping:
            logger.debug("server host listening while it stops", metadata: ["port": "\(port)"])
        case .idle, .listening, .finished:
            logger.warning("server host told it listens in an unexpected state", metadata: ["port": "\(port)"])
        }
    }

    private func finish(failed: Bool) {
        switch state {
        case .idle(let waiters), .starting(_, let waiters):
            for waiter in waiters { waiter.resume(throwing: ServerHostError.notListening) }
        case .listening, .stopping, .finished:
            break
        }
        state = .finished
        logger.debug("server host finished", metadata: ["failed": "\(failed)"])
    }
}
