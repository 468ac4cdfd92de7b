import Foundation
import GangwayProtocol
import GangwaySystem

/// How a mobile-services server runs.
public struct ServerConfiguration: Sendable {
    /// The address to listen on.
    public var host: String
    /// The port to listen on; 0 picks a free one (see ``MobileServicesServer/run(onListening:)``).
    public var port: Int
    /// Where the SQLite database and the admin-token file live.
    public var dataDirectory: URL
    /// A PostgreSQL URL (`postgres://user:password@host:5432/db`); `nil` keeps the data in
    /// SQLite in ``dataDirectory``.
    public var postgresURL: String?
    /// The URL devices reach this server at, sent in discovery answers and activation
    /// links. `nil`: `http://host:port` as listened on.
    public var publicURL: String?
    /// bcrypt cost for passwords: 12 by default (about a quarter second per sign-in on
    /// one core). Tests use 4, the lowest.
    public var bcryptCost: UInt8
    /// The bcrypt costs a server takes (log2 of the rounds).
    public static let bcryptCosts: ClosedRange<UInt8> = 4...31
    /// The cost new passwords get unless told otherwise.
    public static let defaultBcryptCost: UInt8 = 12
    /// How long a session token is valid.
    public var sessionLifetime: Duration
    /// Sign-in attempts allowed per user and address, and per device cookie, before 429s
    /// start (see the DocC's security model).
    public var allowedSignInFailures: Int
    /// Sign-in attempts allowed per user from devices without a cookie, across all
    /// addresses, before 429s start for that user's new devices.
    public var allowedSignInFailuresPerUser: Int
    /// The proxies whose `X-Forwarded-For` is believed: a sign-in through one of them is
    /// throttled by the address the proxy forwarded, not the proxy's own.
    public var trustedProxies: [AddressRange]
    /// How many password checks run at once; as many more may wait, and a sign-in past
    /// that is refused with 503 and `Retry-After`. `nil`: one per thread of NIO's
    /// blocking pool (the number of cores).
    public var concurrentPasswordChecks: Int?
    /// How long a new connection may take to send a whole request head before it is
    /// closed: a client trickling its headers holds a connection no longer.
    public var requestHeadTimeout: Duration
    /// How long a connection may stay silent (between requests, or in a body) before it
    /// is closed.
    public var idleTimeout: Duration
    /// How long a request may take to send its whole body once its head arrived: a
    /// client trickling a body a byte at a time holds a connection no longer.
    public var requestBodyTimeout: Duration
    /// The most connections served at once. At the limit, a new connection takes the
    /// place of the one that has waited longest without a request; when none waits, it
    /// is answered 503 and closed.
    public var maximumConnections: Int
    /// The most connections one address holds at once (a ``trustedProxies`` address,
    /// which carries many people's, is not held to it); one more is answered 503 and
    /// closed. `nil`: a quarter of ``maximumConnections``.
    public var maximumConnectionsPerAddress: Int?
    /// How long a starting server waits for PostgreSQL to take a connection (it may be
    /// starting too) before it gives up and says why.
    public var storageStartupWait: Duration
    /// How long a server told to stop goes on serving, answering `/health/ready` 503,
    /// before it stops taking connections: the time a load balancer needs to take it out
    /// of rotation (a few of its probe intervals). Within ``drainDelays``.
    public var drainDelay: Duration
    /// How long a stopping server gives the requests in flight to end, after its drain,
    /// before it cancels them. Within ``shutdownGraces``.
    public var shutdownGrace: Duration
    /// The drain delays `serve --drain-seconds` takes, in seconds.
    public static let drainDelays: ClosedRange<Int> = 0...300
    /// The grace periods `serve --grace-seconds` takes, in seconds.
    public static let shutdownGraces: ClosedRange<Int> = 1...3600

    /// The file of the key the server seals the activation signing key and the recovery
    /// secrets with (see the DocC's security model); `nil`: `server-key` in
    /// ``dataDirectory``. Every process sharing a PostgreSQL database needs the same key.
    public var keyFile: URL?
    /// Where the operator's console listens when it is kept off the devices' address: its
    /// own host and port (0 picks a free one), where the API's address then answers no
    /// console page. `nil`: the console is under `/console` on the API's address.
    public var consoleAddress: ConsoleAddress?
    /// Where the metrics listener answers `GET /metrics` (``MetricsListener``): an
    /// address of its own (0 picks a free port), never the devices'. `nil`: no metrics
    /// are served.
    public var metricsAddress: ConsoleAddress?
    /// The operator's console's own address (see ``consoleAddress``), or the metrics
    /// listener's (``metricsAddress``).
    public struct ConsoleAddress: Sendable, Hashable {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// Where a browser on this machine reaches the console listening on `boundPort`.
        public func url(boundPort: Int) -> String {
            ServerConfiguration.localAddress(host: host, port: boundPort)
        }
    }
    /// Whether a destination must reach public addresses only: a URL whose host is, or
    /// resolves to, a private, loopback, link-local or other non-public address
    /// (`AddressRange.nonPublic`) is refused when an admin puts it, and a request to a
    /// destination whose host has come to resolve to one is refused with 502. Off by
    /// default: a company's backends are often on its private network.
    public var publicDestinationsOnly: Bool
    /// How long a process keeps an app, a session or a device registration it read (see
    /// GangwayServerStorage's `ReadCache`). On PostgreSQL a write through another
    /// process reaches this one when its notice is heard, within milliseconds; the
    /// lifetime bounds only what is never heard (a notice lost with a process that died
    /// after its commit). `.zero` turns the cache off. Within ``cacheLifetimes``.
    public var cacheLifetime: Duration
    /// The cache lifetimes `serve --cache-seconds` takes, in seconds.
    public static let cacheLifetimes: ClosedRange<Int> = 0...3600
    /// How long a token signing key signs before the server rotates it on its own
    /// (``ScheduledKeyRotation``); `nil`, the default, rotates only when an operator asks
    /// (`gangway admin keys rotate`). Within ``keyRotationDays``, in days.
    public var keyRotationPeriod: Duration?
    /// The periods `serve --rotate-keys-days` takes, in days.
    public static let keyRotationDays: ClosedRange<Int> = 1...3650
    /// How long a new token signing key is in the key sets before it signs its first
    /// token: at least as long as relying parties keep a key set, so each has the key
    /// before it meets a token it signed. Within ``keyPublicationSeconds``.
    public var keyPublicationLead: Duration
    /// Five minutes: how long mainstream JWKS clients keep a key set (PyJWT's
    /// `PyJWKClient`, among others).
    public static let defaultKeyPublicationLead: Duration = .seconds(5 * 60)
    /// The leads `serve --key-publish-seconds` takes, in seconds.
    public static let keyPublicationSeconds: ClosedRange<Int> = 0...86_400

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        dataDirectory: URL,
        postgresURL: String? = nil,
        publicURL: String? = nil,
        bcryptCost: UInt8 = ServerConfiguration.defaultBcryptCost,
        sessionLifetime: Duration = .seconds(12 * 60 * 60),
        allowedSignInFailures: Int = 5,
        allowedSignInFailuresPerUser: Int = 20,
        trustedProxies: [AddressRange] = [],
        concurrentPasswordChecks: Int? = nil,
        cacheLifetime: Duration = .seconds(1),
        keyFile: URL? = nil,
        requestHeadTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60),
        requestBodyTimeout: Duration = .seconds(30),
        maximumConnections: Int = 1_000,
        maximumConnectionsPerAddress: Int? = nil,
        storageStartupWait: Duration = .seconds(30),
        drainDelay: Duration = .zero,
        shutdownGrace: Duration = .seconds(30),
        consoleAddress: ConsoleAddress? = nil,
        metricsAddress: ConsoleAddress? = nil,
        publicDestinationsOnly: Bool = false,
        keyRotationPeriod: Duration? = nil,
        keyPublicationLead: Duration = ServerConfiguration.defaultKeyPublicationLead
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.postgresURL = postgresURL
        self.publicURL = publicURL
        self.bcryptCost = bcryptCost
        self.sessionLifetime = sessionLifetime
        self.allowedSignInFailures = allowedSignInFailures
        self.allowedSignInFailuresPerUser = allowedSignInFailuresPerUser
        self.trustedProxies = trustedProxies
        self.concurrentPasswordChecks = concurrentPasswordChecks
        self.cacheLifetime = cacheLifetime
        self.keyRotationPeriod = keyRotationPeriod
        self.keyPublicationLead = keyPublicationLead
        self.keyFile = keyFile
        self.requestHeadTimeout = requestHeadTimeout
        self.idleTimeout = idleTimeout
        self.requestBodyTimeout = requestBodyTimeout
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        self.storageStartupWait = storageStartupWait
        self.drainDelay = drainDelay
        self.shutdownGrace = shutdownGrace
        self.consoleAddress = consoleAddress
        self.metricsAddress = metricsAddress
        self.publicDestinationsOnly = publicDestinationsOnly
    }

    /// The SQLite file in the data directory.
    public var sqlitePath: URL { dataDirectory.appendingPathComponent(Self.sqliteFileName) }

    /// The SQLite database's file name in the data directory.
    public static let sqliteFileName = "gangway-server.sqlite"
    /// The server key's file: ``keyFile``, or ``serverKeyFileName`` in the data directory.
    public var serverKeyPath: URL { keyFile ?? dataDirectory.appendingPathComponent(Self.serverKeyFileName) }
    /// The file the admin token is written to at first start, readable by its owner only.
    public var adminTokenPath: URL { dataDirectory.appendingPathComponent(Self.adminTokenFileName) }

    /// The server key's file name in the data directory, unless ``keyFile`` names another.
    public static let serverKeyFileName = "server-key"
    /// The admin token's file name in the data directory.
    public static let adminTokenFileName = "admin-token"

    /// Where devices reach the server until the bound port is known: ``publicURL``, or
    /// the host and the configured port.
    var initialPublicURL: String { publicURL ?? "http://\(host):\(port)" }

    /// Where a client on this machine reaches the server listening on `boundPort`: a
    /// wildcard host becomes the loopback address, an IPv6 one is bracketed.
    public func localURL(boundPort: Int) -> URL? {
        URL(string: Self.localAddress(host: host, port: boundPort))
    }

    /// `http://HOST:PORT` as a client on this machine reaches a listener on `host`: a
    /// wildcard host becomes the loopback address, an IPv6 one is bracketed.
    static func localAddress(host: String, port: Int) -> String {
        let local = ["0.0.0.0", "::", ""].contains(host) ? "127.0.0.1" : host
        return "http://" + WebURL.authority(host: local, port: port)
    }
}
