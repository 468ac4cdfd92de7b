import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// Hears the notices the other processes on a PostgreSQL database announce
/// (``PostgresDriver/announce(_:)``), over a connection of its own that `LISTEN`s on
/// ``channel``, until the service group shuts it down.
///
/// Each start of listening is reported as ``StorageNotice/missed``: at first, and after
/// the connection drops (the database restarted, the connection was ended, or it did
/// not answer a heartbeat within ``heartbeatWait``), when it connects again, pausing
/// from ``firstPause`` up to ``longestPause`` between tries. A notice of another schema
/// (another Gangway on the same database) or of this process is not passed on.
struct PostgresNoticeListener: Service, CustomStringConvertible {
    /// The channel every Gangway process on a database uses; the payload names the schema.
    static let channel = "gangway_notices"
    /// How often the connection is asked `SELECT 1`, to notice one that died silently.
    static let heartbeat: Duration = .seconds(5)
    /// How long a heartbeat may take before the connection counts as dropped.
    static let heartbeatWait: Duration = .seconds(5)
    static let firstPause: Duration = .milliseconds(100)
    static let longestPause: Duration = .seconds(2)

    let configuration: PostgresConnection.Configuration
    let schema: String
    /// The service's name alone: the service group logs each service it runs at `debug`,
    /// and a value's own description would hold the configuration's password.
    var description: String { "PostgresNoticeListener" }
    /// This process's driver, whose own notices it skips.
    let origin: String
    let address: String
    let logger: Logger
    let hear: @Sendable (StorageNotice) -> Void

    /// What travels in a notification: the notice, and whose it is.
    struct Payload: Codable, Equatable {
        var schema: String
        var origin: String
        var notice: String

        var text: String {
            (try? String(decoding: JSONEncoder().encode(self), as: UTF8.self)) ?? ""
        }

        init(schema: String, origin: String, notice: String) {
            self.schema = schema
            self.origin = origin
            self.notice = notice
        }

        init?(text: String) {
            guard let payload = try? JSONDecoder().decode(Self.self, from: Data(text.utf8)) else { return nil }
            self = payload
        }
    }

    /// A connection dropped, or a heartbeat got no answer in time.
    private struct Dropped: Error {}

    func run() async {
        var pause = Self.firstPause
        var reported = false
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            let outage = reported
            do {
                try await cancelWhenGracefulShutdown { [logger, address] in
                    try await listen {
                        if outage { logger.notice("Hearing the other processes on PostgreSQL at \(address) again") }
                    }
                }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                if error is Dropped {
                    // It listened: the next try is soon.
                    pause = Self.firstPause
                    reported = false
                }
                if !reported {
                    // Once an outage: the cache's lifetime bounds how stale it may be.
                    logger.warning(
                        "Not hearing the other processes on PostgreSQL at \(address); trying again, and reading again what is kept once it does"
                    )
                    reported = true
                }
            }
            try? await cancelWhenGracefulShutdown { [pause] in try await Task.sleep(for: pause) }
            pause = min(pause * 2, Self.longestPause)
        }
    }

    /// Connects, listens, reports ``StorageNotice/missed``, and hands on every notice
    /// until the connection drops (throws ``Dropped``) or the task is cancelled (returns).
    private func listen(onListening: () -> Void) async throws {
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            try await hearAll(on: connection, onListening: onListening)
            try? await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    private func hearAll(on connection: PostgresConnection, onListening: () -> Void) async throws {
        try await connection.listen(on: Self.channel) { notifications in
            hear(.missed)
            onListening()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await notification in notifications {
                        guard let payload = Payload(text: notification.payload) else {
                            hear(.missed)
                            continue
                        }
                        if payload.schema == schema, payload.origin != origin { hear(.heard(payload.notice)) }
                    }
                    if !Task.isCancelled { throw Dropped() }
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: Self.heartbeat)
                        try await answered(connection)
                    }
                }
                defer { group.cancelAll() }
                do {
                    try await group.next()
                } catch {
                    throw Dropped()
                }
            }
        }
    }

    /// Asks `SELECT 1` and waits ``heartbeatWait`` at most for the answer.
    private func answered(_ connection: PostgresConnection) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await connection.query("SELECT 1", logger: logger)
                return true
            }
            group.addTask {
                try await Task.sleep(for: Self.heartbeatWait)
                return false
            }
            defer { group.cancelAll() }
            guard try await group.next() == true else { throw Dropped() }
        }
    }
}
