import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayDemo
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwaySystem
import GangwayTerminal
import Logging
import ServiceLifecycle

/// `gangway serve`: runs the mobile-services server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the mobile-services server that devices onboard against.",
        discussion: """
            Keeps its data in SQLite under --data-dir, or in PostgreSQL with --postgres-file \
            (or --postgres; then any number of server processes can share the database). At \
            first start it makes \
            an admin token and writes it to DIR/admin-token, readable by its owner only; the \
            token is never printed or logged. The URL it listens at is written to DIR/url, \
            where 'gangway admin --data-dir' finds it. One server at a time holds a data \
            directory (DIR/lock; the device app's embedded server holds its own the same \
            way): a second is refused, naming the first, and so is the device app's data \
            directory (its server's is DIR/server). A server that cannot listen, or reach \
            PostgreSQL within --wait-for-database, says why and writes nothing. SIGINT, \
            SIGTERM or SIGHUP (unless started with nohup) stops the server after the \
            requests in flight. The API is \
            described by the OpenAPI document served at /openapi.json.

            The operator's console is at /console: operators sign in with a password and a \
            code from an authenticator app, set from the one-use link 'gangway admin \
            operators add' prints. Until one has, the server says so at start. With \
            --console-port it listens on an address of its own (for a network the devices \
            cannot reach), and the devices' address answers no console page.

            Sign-ins are throttled per user and address, per user across addresses, and \
            per device cookie (a device a user signed in on before keeps its own count, so \
            nobody guessing elsewhere can lock that person out of it). Behind a reverse \
            proxy, name it with --trusted-proxy so that its X-Forwarded-For is believed; \
            otherwise every user shares the proxy's address. When more password checks run \
            and wait than the server has cores for, sign-ins are answered 503 with \
            Retry-After instead of queueing.
            """
    )

    @Option(
        help: "The address to listen on, an IPv6 one bare or in brackets: ::1 or [::1] (default: 127.0.0.1).",
        transform: unbracketed
    )
    var host = "127.0.0.1"

    @Option(parsing: .unconditional, help: "The port to listen on (0: any free port, printed at start).")
    var port = 8080

    @Option(
        name: .customLong("console-port"),
        parsing: .unconditional,
        help: "Serve the operator's console on this port alone, kept off the devices' address (0: any free port)."
    )
    var consolePort: Int?

    @Option(
        name: .customLong("console-host"),
        help: "With --console-port: the address the console listens on (default: --host).",
        transform: unbracketed
    )
    var consoleHost: String?

    @Option(
        name: .customLong("metrics-port"),
        parsing: .unconditional,
        help:
            "Serve the operator's figures (GET /metrics, Prometheus text format) on this port alone (0: any free port)."
    )
    var metricsPort: Int?

    @Option(
        name: .customLong("metrics-host"),
        help: "With --metrics-port: the address the metrics listen on (default: 127.0.0.1, off the devices' address).",
        transform: unbracketed
    )
    var metricsHost: String?

    @Option(
        name: .customLong("otlp-endpoint"),
        help: ArgumentHelp(
            "Export a span of each request, database statement and call to a backend or provider by OTLP over HTTP to this collector, such as http://127.0.0.1:4318 (they go to its /v1/traces). Default: no spans.",
            valueName: "url"
        )
    )
    var otlpEndpoint: String?

    @Option(
        name: .customLong("trace-sample-ratio"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --otlp-endpoint: the share of traces recorded, \(TraceExport.sampleRatios.lowerBound) to \(TraceExport.sampleRatios.upperBound), chosen by trace ID whatever the caller asks (default: 1, every one).",
            valueName: "ratio"
        )
    )
    var traceSampleRatio: Double?

    @Option(name: .customLong("data-dir"), help: "Where the SQLite database and the admin token live.")
    var dataDirectory = ServeCommand.defaultDataDirectory

    @Option(
        name: .customLong("postgres"),
        help:
            "A PostgreSQL URL (postgres://user@host:5432/db) to keep the data in instead of SQLite; one with a password belongs in --postgres-file."
    )
    var postgresURL: String?

    @Option(
        name: .customLong("postgres-file"),
        help: ArgumentHelp(
            "A file holding the PostgreSQL URL, yours alone: its password stays out of the process list.",
            valueName: "file"
        )
    )
    var postgresFile: String?

    @Option(
        name: .customLong("wait-for-database"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --postgres or --postgres-file: how long to wait at start for PostgreSQL to take a connection, 1 to 3600.",
            valueName: "seconds"
        )
    )
    var databaseWait = 30

    @Option(
        name: .customLong("drain-seconds"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "When told to stop (SIGTERM, SIGINT, SIGHUP): how long to go on serving, /health/ready answering 503, before taking no new connection, \(ServerConfiguration.drainDelays.lowerBound) to \(ServerConfiguration.drainDelays.upperBound).",
            valueName: "seconds"
        )
    )
    var drainSeconds = 0

    @Option(
        name: .customLong("grace-seconds"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "When told to stop, after the drain: how long the requests in flight have to end before they are cancelled, \(ServerConfiguration.shutdownGraces.lowerBound) to \(ServerConfiguration.shutdownGraces.upperBound).",
            valueName: "seconds"
        )
    )
    var graceSeconds = 30

    @Option(
        name: .customLong("cache-seconds"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long a read of an app, a session or a device is kept, \(ServerConfiguration.cacheLifetimes.lowerBound) (none) to \(ServerConfiguration.cacheLifetimes.upperBound). On PostgreSQL a write through another process reaches this one within milliseconds whatever it is.",
            valueName: "seconds"
        )
    )
    var cacheSeconds = 1

    @Option(
        name: .customLong("public-url"),
        help: """
            The URL devices reach this server at (default: http://HOST:PORT); an https one \
            also tells browsers to reach its host by https alone for a year (Strict-Transport-Security).
            """
    )
    var publicURL: String?

    @Option(
        name: .customLong("bcrypt-cost"),
        parsing: .unconditional,
        help: "bcrypt cost for passwords, \(BcryptCostOption.rangeText)."
    )
    var bcryptCost: UInt8 = BcryptCostOption.default

    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "The server key that seals the signing key and recovery secrets (default: DIR/server-key); every process on one PostgreSQL database needs the same.",
            valueName: "file"
        )
    )
    var keyFile: String?

    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp(
            """
            A reverse proxy whose X-Forwarded-For is believed (an address or a block such as 10.0.0.0/8); repeat for \
            several. A public block wider than a /8 (IPv6: /16), such as 0.0.0.0/0, is warned of at start.
            """,
            valueName: "address"
        )
    )
    var trustedProxies: [String] = []

    @Flag(
        help: """
            Refuse destinations that reach a private, loopback or link-local address (a cloud's metadata service \
            among them): checked when an admin puts one, and at each request, so a host that comes to resolve to \
            one is refused too.
            """
    )
    var publicDestinationsOnly = false

    @Option(
        name: .customLong("rotate-keys-days"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Rotate each token signing key (ID tokens, destination identities) once it has signed for this many days, \(ServerConfiguration.keyRotationDays.lowerBound) to \(ServerConfiguration.keyRotationDays.upperBound); the old key stays published until its tokens expire. Default: only when an operator runs gangway admin keys rotate.",
            valueName: "days"
        )
    )
    var rotateKeysDays: Int?

    @Option(
        name: .customLong("key-publish-seconds"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long a new token signing key is published before it signs, \(ServerConfiguration.keyPublicationSeconds.lowerBound) to \(ServerConfiguration.keyPublicationSeconds.upperBound): at least as long as the relying parties keep the key set.",
            valueName: "seconds"
        )
    )
    var keyPublishSeconds = Int(ServerConfiguration.defaultKeyPublicationLead.components.seconds)

    @Flag(
        help: """
            Seed the device app's demo: its app (aircraft ground checks, devices may record a \
            check's status, reading and note offline), its checks and its two users, whose \
            passwords are printed, unless the app is there already; and run the demo \
            airline's crew backend on a loopback port beside the server, behind the app's \
            destination 'crew'. For trying Gangway only.
            """
    )
    var demo = false

    @Option(
        name: .customLong("demo-checks"),
        help: ArgumentHelp(
            "With --demo: seed this many more checks (1 to \(DemoApp.generatedChecksLimit)) of a larger operation over ten stations.",
            discussion:
                "Each check then has a station, and each user receives their own station's checks only: alice CDG (with the demo's five checks), bob ORY.",
            valueName: "count"
        )
    )
    var demoChecks: Int?

    @Option(
        name: .customLong("restore"),
        help: ArgumentHelp(
            "Restore a backup made by 'gangway admin backup' into --data-dir, which must hold no database, then serve it. The backup's server key must be there first (DIR/server-key, or --key-file).",
            valueName: "file"
        )
    )
    var restore: String?

    @Flag(name: .customLong("new-admin-token"), help: "Write a new admin token and retire the old one.")
    var newAdminToken = false

    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "A JSON file of settings: any of these options but the actions (--demo, --demo-checks, --restore, --new-admin-token), named without its dashes, such as {\"port\": 8443, \"postgres-file\": \"/etc/gangway/postgres-url\"}. GANGWAY_PORT and the like set them too, but for bcrypt-cost, trusted-proxy and metrics-host, which would weaken the server; the command line wins over the environment, the environment over the file. Secrets only from files.",
            valueName: "file"
        )
    )
    var config: String?

    @Flag(
        name: .customLong("check-config"),
        help:
            "Say what serve would run with and where each setting came from, the password of a URL hidden; start nothing."
    )
    var checkConfig = false

    @Option(
        name: .customLong("log-level"),
        help: "trace, debug, info, notice, warning, error or critical (default: $GANGWAY_LOG_LEVEL, or info)."
    )
    var logLevel: String?

    static var defaultDataDirectory: String {
        // The device app's embedded server, so both serve the same data.
        GangwayDirectory.path(DeviceAppOptions.serverDirectoryName)
    }

    /// An address as typed, its brackets off: `[::1]` is how a URL writes `::1`.
    static func unbracketed(_ text: String) -> String {
        text.hasPrefix("[") && text.hasSuffix("]") && text.count > 2 ? String(text.dropFirst().dropLast()) : text
    }

    func validate() throws {
        do {
            try validateOptions()
        } catch let error as ValidationError {
            throw ValidationError(ServeSettings.naming(origins: ServeSettings.origins, in: error.message))
        }
    }

    private func validateOptions() throws {
        try DirectoryOption.validate(dataDirectory, option: "--data-dir")
        try BcryptCostOption.validate(bcryptCost)
        try AppCommand.validate(demoChecks: demoChecks)
        if demoChecks != nil, !demo { throw ValidationError("--demo-checks goes with --demo.") }
        for (option, value) in [("--host", host), ("--console-host", consoleHost), ("--metrics-host", metricsHost)] {
            if let value, value.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("\(option) needs an address, such as 127.0.0.1.")
            }
            // What is left of brackets, a URL's parts, a port or spaces is no address: a
            // typo, not an address of another machine. (An IPv6 address has two colons or
            // more.)
            if let value,
                value.contains(where: { "[]/@?# ".contains($0) || $0.isNewline || $0.asciiValue == 9 })
                    || value.filter({ $0 == ":" }).count == 1
            {
                throw ValidationError(
                    "\(option) '\(TextRules.shown(value, limit: 80))' is not an address: give an IP address or a host "
                        + "name, an IPv6 one bare or in brackets (::1 or [::1])."
                )
            }
        }
        let ports = ListeningAddress.ports
        guard ports.contains(port) else {
            throw ValidationError("--port must be between \(ports.lowerBound) and \(ports.upperBound).")
        }
        if let consolePort {
            guard ports.contains(consolePort) else {
                throw ValidationError("--console-port must be between \(ports.lowerBound) and \(ports.upperBound).")
            }
            if consolePort != 0, consolePort == port, (consoleHost ?? host) == host {
                throw ValidationError("--console-port must differ from --port: the console is then on its own address.")
            }
        } else if consoleHost != nil {
            throw ValidationError("--console-host needs --console-port.")
        }
        if let metricsPort {
            guard ports.contains(metricsPort) else {
                throw ValidationError("--metrics-port must be between \(ports.lowerBound) and \(ports.upperBound).")
            }
            let metricsAddress = metricsHost ?? ServeCommand.metricsDefaultHost
            if metricsPort != 0,
                (metricsPort == port && metricsAddress == host)
                    || (metricsPort == consolePort && metricsAddress == (consoleHost ?? host))
            {
                throw ValidationError("--metrics-port must differ from the ports the devices and the console use.")
            }
        } else if metricsHost != nil {
            throw ValidationError("--metrics-host needs --metrics-port.")
        }
        if let traceSampleRatio {
            guard otlpEndpoint != nil else { throw ValidationError("--trace-sample-ratio goes with --otlp-endpoint.") }
            guard TraceExport.sampleRatios.contains(traceSampleRatio) else {
                let ratios = TraceExport.sampleRatios
                throw ValidationError(
                    "--trace-sample-ratio must be between \(ratios.lowerBound) and \(ratios.upperBound)."
                )
            }
        }
        if let otlpEndpoint { _ = try traceExport(otlpEndpoint) }
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            let shown = TextRules.shown(logLevel, limit: 40)
            throw ValidationError("--log-level '\(shown)' is not a level (\(LogLevelVariable.names)).")
        }
        for proxy in trustedProxies where AddressRange(proxy) == nil {
            throw ValidationError("--trusted-proxy '\(proxy)' is not an address or a block such as 10.0.0.0/8.")
        }
        guard (1...3600).contains(databaseWait) else {
            throw ValidationError("--wait-for-database must be between 1 and 3600 seconds.")
        }
        for (option, value, range) in [
            ("--drain-seconds", drainSeconds, ServerConfiguration.drainDelays),
            ("--grace-seconds", graceSeconds, ServerConfiguration.shutdownGraces),
            ("--cache-seconds", cacheSeconds, ServerConfiguration.cacheLifetimes),
            ("--key-publish-seconds", keyPublishSeconds, ServerConfiguration.keyPublicationSeconds),
        ] where !range.contains(value) {
            throw ValidationError(
                "\(option) must be between \(range.lowerBound) and \(range.upperBound) seconds."
            )
        }
        if let rotateKeysDays, !ServerConfiguration.keyRotationDays.contains(rotateKeysDays) {
            let days = ServerConfiguration.keyRotationDays
            throw ValidationError("--rotate-keys-days must be between \(days.lowerBound) and \(days.upperBound) days.")
        }
        if let publicURL { _ = try URLOption.parse(publicURL, option: "--public-url") }
        for (option, value) in [("--key-file", keyFile), ("--postgres-file", postgresFile)] {
            if let value, value.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("\(option) must name a file.")
            }
        }
        if let restore, restore.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--restore must name a backup file, as made by gangway admin backup.")
        }
        if restore != nil, postgresURL != nil || postgresFile != nil {
            throw ValidationError(
                "--restore restores a SQLite backup; a PostgreSQL database is restored with pg_restore (see the README)."
            )
        }
        if postgresURL != nil, postgresFile != nil {
            throw ValidationError("give the PostgreSQL URL with --postgres or --postgres-file, not both.")
        }
        if let postgresURL {
            do throws(StorageError) {
                _ = try PostgresDriver(url: postgresURL, logger: Logger(label: "gangway.serve"))
            } catch {
                throw ValidationError("--postgres: \(error.message).")
            }
        }
    }

    /// What serve checks before it writes anything, the PostgreSQL URL it runs with, and
    /// what it warns of. With `listening`, that it can listen where it is told; without
    /// (`--check-config`, which may check for the server listening there now), that it
    /// could make its data directory instead, as it does later.
    private func checkedBeforeStart(listening: Bool) throws -> String? {
        let postgresURL = try databaseURL()
        if let keyFile {
            // A typo in the key's path is not a new directory: the key would be made where
            // no one looks for it.
            let parent = URL(fileURLWithPath: keyFile).deletingLastPathComponent()
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw CommandFailure(
                    "the directory of --key-file, \(parent.path), does not exist. Nothing was changed."
                )
            }
        }
        let directory = URL(fileURLWithPath: dataDirectory)
        if DeviceAppOptions.isDataDirectory(directory) {
            let server = directory.appendingPathComponent(DeviceAppOptions.serverDirectoryName)
            throw CommandFailure(
                "\(dataDirectory) is the device app's data directory; its server keeps its data in "
                    + "\(server.path). Nothing was changed."
            )
        }
        if listening {
            if let problem = ListeningAddress.problem(host: host, port: port) {
                throw CommandFailure("cannot listen on \(host):\(port): \(problem).")
            }
            let console = consolePort.map { ServerConfiguration.ConsoleAddress(host: consoleHost ?? host, port: $0) }
            if let console, let problem = ListeningAddress.problem(host: console.host, port: console.port) {
                throw CommandFailure("cannot listen on \(console.host):\(console.port) for the console: \(problem).")
            }
            if let metricsPort {
                let metricsAddress = metricsHost ?? Self.metricsDefaultHost
                if let problem = ListeningAddress.problem(host: metricsAddress, port: metricsPort) {
                    throw CommandFailure(
                        "cannot listen on \(metricsAddress):\(metricsPort) for the metrics: \(problem)."
                    )
                }
            }
        } else {
            try PrivateFiles.checkMakeable(directory)
        }
        for proxy in trustedProxies.compactMap(AddressRange.init) where proxy.isWide {
            Console.standardError(
                "Warning: --trusted-proxy \(proxy) trusts "
                    + (proxy.description.hasSuffix("/0") ? "every address" : "a block far wider than any proxy's")
                    + ": any client in it can set X-Forwarded-For and choose the address its sign-ins are throttled "
                    + "and recorded under. Name the proxy's own address or network."
            )
        }
        if publicURL == nil, ["0.0.0.0", "::"].contains(host) {
            Console.standardError(
                "Warning: --host \(host) listens on every address, but the links and addresses the server gives "
                    + "devices would name \(host), which no device can reach; give --public-url with the address "
                    + "devices use (such as http://gangway.example:\(port == 0 ? "PORT" : String(port)))."
            )
        }
        return postgresURL
    }

    /// Starts the export `--otlp-endpoint` asks for, if it does: the tracer to give the
    /// server and the service that sends its spans.
    private func startTraceExport() throws -> (tracer: ServerTracer, service: any Service)? {
        guard let otlpEndpoint else { return nil }
        return try traceExport(otlpEndpoint).start(logger: Logger(label: "gangway.traces"))
    }

    /// The export `--otlp-endpoint` and `--trace-sample-ratio` ask for.
    private func traceExport(_ endpoint: String) throws -> TraceExport {
        do throws(TraceExportError) {
            return try TraceExport(endpoint: endpoint, sampleRatio: traceSampleRatio ?? 1)
        } catch {
            let shown = TextRules.shown(WebURL.hidingPassword(endpoint), limit: 80)
            throw ValidationError("--otlp-endpoint '\(shown)' \(error.reason).")
        }
    }

    private func databaseURL() throws -> String? {
        try Self.databaseURL(postgres: postgresURL, file: postgresFile)
    }

    /// The PostgreSQL URL of `--postgres`, or of the file `--postgres-file` names; a
    /// password on the command line is warned of, as every account can read it there.
    static func databaseURL(postgres postgresURL: String?, file postgresFile: String?) throws -> String? {
        if let postgresFile {
            let url = try SecretInput.read(file: postgresFile, what: "the --postgres-file file")
            do throws(StorageError) {
                _ = try PostgresDriver(url: url, logger: Logger(label: "gangway.serve"))
            } catch {
                throw CommandFailure("--postgres-file \(postgresFile): \(error.message).")
            }
            return url
        }
        if let postgresURL, WebURL.password(in: postgresURL) != nil {
            Console.standardError(
                "Warning: the password in --postgres shows in the process list to every account on this machine; "
                    + "give the URL in a file of yours with --postgres-file FILE."
            )
        }
        return postgresURL
    }

    func run() async throws {
        try await CommandReport.run("gangway serve") { try await serve() }
    }

    private func serve() async throws {
        if checkConfig {
            _ = try checkedBeforeStart(listening: false)
            Console.standardOutput(checkedConfiguration(origins: ServeSettings.origins))
            return
        }
        // Before anything is written: a server that cannot listen says why and leaves
        // the data directory as it was.
        // A server on this directory already is said as such, rather than by its port.
        if let busy = DirectoryLock.holder(of: URL(fileURLWithPath: dataDirectory)) { throw busy }
        let postgresURL = try checkedBeforeStart(listening: true)
        let console = consolePort.map { ServerConfiguration.ConsoleAddress(host: consoleHost ?? host, port: $0) }
        let level = logLevel.flatMap(Logger.Level.init(rawValue:)) ?? LogLevelVariable.level ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        // The spans' export, before anything makes one.
        let traces = try startTraceExport()
        let configuration = ServerConfiguration(
            host: host,
            port: port,
            dataDirectory: URL(fileURLWithPath: dataDirectory),
            postgresURL: postgresURL,
            publicURL: publicURL,
            bcryptCost: bcryptCost,
            trustedProxies: trustedProxies.compactMap(AddressRange.init),
            cacheLifetime: .seconds(cacheSeconds),
            keyFile: keyFile.map { URL(fileURLWithPath: $0) },
            storageStartupWait: .seconds(databaseWait),
            drainDelay: .seconds(drainSeconds),
            shutdownGrace: .seconds(graceSeconds),
            consoleAddress: console,
            metricsAddress: metricsPort.map {
                ServerConfiguration.ConsoleAddress(host: metricsHost ?? ServeCommand.metricsDefaultHost, port: $0)
            },
            publicDestinationsOnly: publicDestinationsOnly,
            keyRotationPeriod: rotateKeysDays.map { .seconds($0 * 24 * 60 * 60) },
            keyPublicationLead: .seconds(keyPublishSeconds)
        )
        if let postgresURL {
            // Before anything is written too: a database that is down, or refuses these
            // credentials, leaves nothing behind.
            let postgres = try PostgresDriver(url: postgresURL, logger: Logger(label: "gangway.serve"))
            try await postgres.waitUntilReachable(within: .seconds(databaseWait)) {
                Console.standardError(
                    "Waiting for PostgreSQL at \(postgres.address) (up to \(databaseWait) s; --wait-for-database)…"
                )
            }
        }
        // One server per data directory: a second would share its database and its URL file.
        let hold = try DirectoryLock(configuration.dataDirectory, holder: "gangway serve")
        do {
            try await start(configuration, traces: traces)
            hold.release()
        } catch {
            // A server that failed leaves no lock of its own behind (another process's is
            // never touched), nor the empty directories made for it.
            hold.releaseRemovingWhatItMade()
            throw error
        }
    }

    /// Opens the held data directory's server and serves until interrupted, its spans
    /// going to `traces` when there is an export.
    private func start(
        _ configuration: ServerConfiguration,
        traces: (tracer: ServerTracer, service: any Service)?
    ) async throws {
        if let restore {
            try await ServerBackup.restore(URL(fileURLWithPath: restore), configuration: configuration)
            Console.standardOutput("Restored \(restore) into \(configuration.sqlitePath.path).")
        }
        let server = try await MobileServicesServer(
            configuration: configuration,
            renewAdminToken: newAdminToken,
            tracer: traces?.tracer ?? .none
        )
        switch server.adminToken {
        case .created(let path):
            Console.standardOutput("Admin token: new, written to \(path) (readable by you only).")
        case .existing(let path):
            Console.standardOutput("Admin token: in \(path).")
        case .elsewhere(let path) where restore != nil:
            Console.standardOutput(
                "Admin token: the backed-up server's, which \(path) does not hold: copy that server's admin-token "
                    + "file here, or run once with --new-admin-token to make a new one."
            )
        case .elsewhere(let path) where server.storage.kind == .postgresql:
            // Another process on the database made it: its file is the one to copy.
            Console.standardOutput(
                "Admin token: made by a server on this database before, which \(path) does not hold: copy the "
                    + "admin-token file of the server that made it here; --new-admin-token would make a new one, and "
                    + "the old one would stop working on every server."
            )
        case .elsewhere(let path):
            Console.standardOutput(
                "Admin token: made earlier, but \(path) does not hold it; run with --new-admin-token to make a new one."
            )
        }
        if demo { try await seedDemo(server) }
        let storage = server.storage.kind == .sqlite ? "SQLite in \(configuration.sqlitePath.path)" : "PostgreSQL"
        // With --demo, the demo airline's own backend runs beside the server, reached
        // through the demo app's destination.
        let alongside = traces.map { [$0.service] } ?? []
        if let export = otlpEndpoint.flatMap({ try? traceExport($0) }) {
            let share = export.sampleRatio >= 1 ? "every trace" : "\(export.sampleRatio * 100)% of traces"
            Console.standardOutput("Traces: \(share), by OTLP over HTTP to \(export.tracesURL)")
        }
        guard demo else {
            return try await run(
                server,
                configuration: configuration,
                storage: storage,
                alongside: alongside,
                crew: nil
            )
        }
        let crew = CrewBackend(logger: Logger(label: "gangway.demo.crew"))
        try await crew.serving { backend in
            try await run(
                server,
                configuration: configuration,
                storage: storage,
                alongside: alongside,
                crew: (crew, backend)
            )
        }
    }

    /// Serves until interrupted, saying where.
    private func run(
        _ server: MobileServicesServer,
        configuration: ServerConfiguration,
        storage: String,
        alongside: [any Service],
        crew: (backend: CrewBackend, url: URL)?
    ) async throws {
        let hasOperator = try await server.storage.withConnections {
            try await server.storage.operatorRecords().contains(where: \.isEnrolled)
        }
        let urlFile = ServerURLFile(directory: configuration.dataDirectory)
        defer { urlFile.removeIfUnchanged() }
        let console = consolePort.map { ServerConfiguration.ConsoleAddress(host: consoleHost ?? host, port: $0) }
        try await server.run(alongside: alongside) { boundPort in
            let local = configuration.localURL(boundPort: boundPort)
            // For 'gangway admin', which finds the local server through this file; written
            // before the line that says the server listens.
            if let local { try? urlFile.write(local) }
            if let crew, let local {
                let connected = try? await DemoServer.connect(
                    crew.backend,
                    at: crew.url,
                    to: server,
                    serverURL: local,
                    issuerBase: publicURL ?? "http://" + WebURL.authority(host: host, port: boundPort)
                )
                switch connected {
                case true?:
                    Console.standardOutput(
                        "Demo: the app's destination '\(CrewAPI.destination)' reaches the airline's crew backend "
                            + "at \(crew.url.absoluteString), as the signed-in person."
                    )
                case false?:
                    Console.standardOutput(
                        "Demo: the app's destination '\(CrewAPI.destination)' goes elsewhere; left as it is."
                    )
                case nil:
                    Console.standardError(
                        "Demo: the destination '\(CrewAPI.destination)' could not be set; the crew backend is "
                            + "out of the app's reach."
                    )
                }
            }
            Console.standardOutput(
                "Gangway server listening on http://\(WebURL.authority(host: host, port: boundPort)) (\(storage)); "
                    + "Ctrl-C stops it."
            )
            if console == nil {
                Console.standardOutput(
                    consoleLine(
                        address: "http://" + WebURL.authority(host: host, port: boundPort),
                        hasOperator: hasOperator
                    )
                )
            }
        } onConsoleListening: { boundPort in
            guard let console else { return }
            Console.standardOutput(
                consoleLine(address: console.url(boundPort: boundPort), hasOperator: hasOperator, apart: true)
            )
        } onMetricsListening: { boundPort in
            guard let metrics = configuration.metricsAddress else { return }
            Console.standardOutput(Self.metricsLine(metrics, boundPort: boundPort))
        }
    }

    /// Where the metrics are, as serve says once they listen: reached from this machine
    /// at its loopback address, and said to listen on every address when they do, as the
    /// figures ask no credential.
    static func metricsLine(_ address: ServerConfiguration.ConsoleAddress, boundPort: Int) -> String {
        let everywhere =
            ["0.0.0.0", "::"].contains(address.host)
            ? ", listening on every address (\(address.host)): anyone who reaches this machine can read them" : ""
        return "Metrics: \(address.url(boundPort: boundPort))/metrics (Prometheus text format)\(everywhere)"
    }

    /// Where the metrics listen without --metrics-host: this machine only.
    static let metricsDefaultHost = "127.0.0.1"

    /// Where the console is and, before anyone can sign in to it, how to make the first
    /// operator: a command that prints their one-use link (never this server's output,
    /// which may go to a log).
    private func consoleLine(address: String, hasOperator: Bool, apart: Bool = false) -> String {
        let console =
            "Console: \(address)/console"
            + (apart ? " (an address of its own: the devices' serves no console page)" : "")
        guard !hasOperator else { return console }
        let directory = dataDirectory == ServeCommand.defaultDataDirectory ? "" : " --data-dir \(dataDirectory)"
        return console + "; no operator can sign in yet. Run 'gangway admin operators add YOUR-NAME --role admin"
            + "\(directory)' and open the link it prints to set your password and second factor."
    }

    /// Seeds the device app's demo unless its app is there.
    private func seedDemo(_ server: MobileServicesServer) async throws {
        do throws(SeedError) {
            try await server.seed(DemoServer.seed(generatedChecks: demoChecks ?? 0))
        } catch {
            guard error == .appExists else { throw error }
            Console.standardOutput("Demo: the app '\(DemoApp.appID)' is there already; nothing seeded.")
            return
        }
        let users = DemoApp.users.map { "\($0.username) / \($0.password)" }.joined(separator: ", ")
        Console.standardOutput(
            "Demo: app '\(DemoApp.appID)' (work email @\(DemoApp.emailDomain)), users \(users). For trying Gangway only."
        )
        if let demoChecks {
            let stations = DemoApp.users.map {
                "\($0.username) \(DemoApp.userStations[$0.username]?.joined() ?? "none")"
            }
            Console.standardOutput(
                "Demo: \(demoChecks + DemoApp.checks.count) checks over \(DemoApp.stations.count) stations; each user receives their station's: \(stations.joined(separator: ", "))."
            )
        }
    }
}
