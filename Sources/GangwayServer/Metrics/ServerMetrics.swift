import CoreMetrics
import Foundation
import GangwayServerStorage
import HTTPTypes
import Metrics
import Prometheus
import Synchronization

/// The server's figures for its operator, recorded through swift-metrics into a registry
/// of its own and written in the Prometheus text format (``exposition()``) on the metrics
/// listener (``MetricsListener``).
///
/// Every label takes its values from a bounded set: a route is the API document's
/// template (``RouteTable/template(for:)``), never the path a caller sent; a method
/// outside HTTP's own is `other`; a destination is named only once it resolved to one an
/// admin made; outcomes are the server's own words. So a caller cannot grow the
/// exposition by sending new paths, names or IDs.
///
/// One registry per server, not the process's global one: servers in one process (the
/// tests', the demo's) keep their figures apart, and nothing depends on the process
/// having bootstrapped swift-metrics. A server with no metrics listener records nothing
/// (``isRecording``): its requests pay nothing for figures no one reads.
final class ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    /// When the server started, for `process_start_time_seconds`.
    private let started: Date
    /// Whether figures are recorded; every recording is a no-op otherwise.
    let isRecording: Bool
    /// The storage whose own figures (cache, connections) a scrape reads.
    private let storage: ServerStorage?

    init(
        recording: Bool = true,
        storage: ServerStorage? = nil,
        started: Date = Date(timeIntervalSince1970: ProcessFigures.startTime ?? 0)
    ) {
        isRecording = recording
        self.storage = storage
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Requests from under a millisecond (a cached read) to a long-poll's minute.
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5),
            .seconds(10), .seconds(30), .seconds(60),
        ]
        self.factory = factory
        self.started = started
    }

    /// The methods a request's label keeps; any other is `other`.
    static let methods: Set<String> = [
        "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT",
    ]

    /// A request's method as a label or a span's name says it: one of HTTP's own
    /// (``methods``), else `other`, so a caller's made-up methods add no series or names.
    static func label(method: String) -> String { methods.contains(method) ? method : "other" }

    /// One request answered: its route's template, method and status, and how long the
    /// server took to answer it (its body's streaming aside).
    func request(route: String, method: String, status: Int, duration: Duration) {
        guard isRecording else { return }
        let method = Self.label(method: method)
        let key = RequestKey(route: route, method: method, status: status)
        // The handlers of each label set, made once: a request then costs one look-up.
        let recorders =
            requestRecorders.withLock { $0[key] }
            ?? {
                let made = RequestRecorders(
                    count: Counter(
                        label: "gangway_http_requests_total",
                        dimensions: [("route", route), ("method", method), ("status", String(status))],
                        factory: factory
                    ),
                    duration: Metrics.Timer(
                        label: "gangway_http_request_duration_seconds",
                        dimensions: [("route", route), ("method", method)],
                        factory: factory
                    )
                )
                requestRecorders.withLock { $0[key] = made }
                return made
            }()
        recorders.count.increment()
        recorders.duration.recordNanoseconds(duration.wholeNanoseconds)
    }

    private struct RequestKey: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    private struct RequestRecorders: @unchecked Sendable {
        // swift-metrics' handles are thread-safe classes, not marked Sendable.
        let count: CoreMetrics.Counter
        let duration: Metrics.Timer
    }

    private let requestRecorders = Mutex<[RequestKey: RequestRecorders]>([:])

    /// A sign-in decided: `succeeded`, `refused` (a wrong name or password), `throttled`,
    /// `blocked` (the user or device may not), `busy` (too many password checks at once).
    func signIn(_ outcome: String) {
        guard isRecording else { return }
        Counter(label: "gangway_sign_ins_total", dimensions: [("outcome", outcome)], factory: factory).increment()
    }

    /// A refused sign-in's outcome, by its status: `refused` (a wrong name or password,
    /// 401), `throttled` (429), `busy` (503: too many password checks at once), `blocked`
    /// (403: a locked registration, a blocked device), `invalid` (any other 4xx), `failed`.
    static func signInOutcome(of error: APIError) -> String {
        switch error.status.code {
        case 401: "refused"
        case 429: "throttled"
        case 503: "busy"
        case 403: "blocked"
        case 400..<500: "invalid"
        default: "failed"
        }
    }

    /// Changes of an upload ended, by outcome (applied, duplicate, conflict, rejected,
    /// held).
    func changes(_ outcome: String, count: Int = 1) {
        guard isRecording, count > 0 else { return }
        Counter(label: "gangway_changes_total", dimensions: [("outcome", outcome)], factory: factory)
            .increment(by: count)
    }

    /// One request a destination's backend answered (or did not: status `0`), and how
    /// long it took to answer its head; `destination` is `APP/NAME`.
    func destination(_ name: String, status: Int, duration: Duration) {
        guard isRecording else { return }
        Counter(
            label: "gangway_destination_requests_total",
            dimensions: [("destination", name), ("status", String(status))],
            factory: factory
        ).increment()
        Metrics.Timer(
            label: "gangway_destination_duration_seconds",
            dimensions: [("destination", name)],
            factory: factory
        ).recordNanoseconds(duration.wholeNanoseconds)
    }

    /// A token request answered, by its grant (`authorization_code`, `refresh_token`,
    /// `urn:ietf:params:oauth:grant-type:device_code`, `other`) and outcome (`issued`, or
    /// the OAuth error code it was refused with: a device's `authorization_pending`
    /// polls among them).
    func tokenGrant(_ grant: String, outcome: String) {
        guard isRecording else { return }
        Counter(
            label: "gangway_oauth_token_requests_total",
            dimensions: [("grant", grant), ("outcome", outcome)],
            factory: factory
        ).increment()
    }

    /// A page of a sync answered (`waited`: after the device waited for a change, until
    /// one came or its wait ended).
    func syncPage(waited: Bool) {
        guard isRecording else { return }
        Counter(label: "gangway_sync_pages_total", dimensions: [("waited", waited ? "yes" : "no")], factory: factory)
            .increment()
    }

    /// How many devices wait for a change of an entity set now.
    func waitingDevices(_ count: Int) {
        guard isRecording else { return }
        Gauge(label: "gangway_sync_waiting_devices", factory: factory).record(count)
    }

    /// Rows the purge of expired rows deleted.
    func purged(_ rows: Int) {
        guard isRecording, rows > 0 else { return }
        Counter(label: "gangway_purged_rows_total", factory: factory).increment(by: rows)
    }

    /// The figures the storage keeps itself, read at each scrape: the read cache's hits
    /// and misses by kind, and PostgreSQL's connections in use and awaited.
    private let storageTallies = Mutex<[String: ReadCache.Tally]>([:])

    private func recordStorage(_ storage: ServerStorage) {
        for (kind, tally) in storage.cacheTallies {
            // Counters move by what changed since the last scrape.
            let last = storageTallies.withLock { tallies in
                defer { tallies[kind] = tally }
                return tallies[kind] ?? ReadCache.Tally()
            }
            for (result, now, before) in [("hit", tally.hits, last.hits), ("miss", tally.misses, last.misses)]
            where now > before {
                Counter(
                    label: "gangway_read_cache_total",
                    dimensions: [("kind", kind), ("result", result)],
                    factory: factory
                ).increment(by: now - before)
            }
        }
        if let connections = storage.driver.connectionFigures {
            Gauge(label: "gangway_database_connections_in_use", factory: factory).record(connections.inUse)
            Gauge(label: "gangway_database_connections_awaited", factory: factory).record(connections.awaited)
        }
    }

    /// The processor time `process_cpu_seconds_total` has counted.
    private let cpuSecondsCounted = Mutex<Double>(0)

    /// The exposition, in the Prometheus text format (version 0.0.4): the process's
    /// and the storage's figures read now, then every figure recorded.
    func exposition() -> [UInt8] {
        if isRecording, let storage { recordStorage(storage) }
        let process = ProcessFigures.read()
        Gauge(label: "process_start_time_seconds", factory: factory).record(started.timeIntervalSince1970)
        if let process {
            Gauge(label: "process_resident_memory_bytes", factory: factory).record(process.residentBytes)
            // A counter, as Prometheus's own process figures have it: moved by what the
            // process used since the last scrape.
            let used = cpuSecondsCounted.withLock { counted in
                defer { counted = max(counted, process.cpuSeconds) }
                return process.cpuSeconds - counted
            }
            let cpu = FloatingPointCounter(label: "process_cpu_seconds_total", factory: factory)
            if used > 0 { cpu.increment(by: used) }
            Gauge(label: "process_open_fds", factory: factory).record(process.openFiles)
        }
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        return bytes
    }
}
