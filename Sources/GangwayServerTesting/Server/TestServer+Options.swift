import Foundation
import GangwayServer
import GangwayServerStorage
import GangwaySystem
import Logging

extension TestServer {
    /// How a ``TestServer`` is made: its database, bcrypt cost, limits, logger and clock.
    ///
    /// The defaults suit tests: SQLite, bcrypt at its lowest cost (4), a logger that
    /// drops everything, the system clock.
    public struct Options: Sendable {
        /// Where the data lives.
        public var database: TestDatabase
        /// bcrypt cost for passwords, 4 to 31.
        public var bcryptCost: UInt8
        /// Sign-in attempts allowed per user and address before 429s start.
        public var allowedSignInFailures: Int
        /// How long the server keeps what it read (see `ServerConfiguration.cacheLifetime`).
        public var cacheLifetime: Duration
        /// The server's logger.
        public var logger: Logger
        /// The server's wall clock.
        public var now: @Sendable () -> Date
        /// Changes the rest of the server's configuration (trusted proxies, sign-in
        /// limits, password checks), after the options above are applied.
        public var configure: @Sendable (inout ServerConfiguration) -> Void
        /// Where the server's spans go: none by default.
        public var tracer: ServerTracer

        /// Options with the given values; every one has a default for tests.
        public init(
            database: TestDatabase = .sqlite,
            bcryptCost: UInt8 = 4,
            allowedSignInFailures: Int = 5,
            cacheLifetime: Duration = .seconds(1),
            logger: Logger = Logger(label: "gangway.test-server", factory: { _ in SwiftLogNoOpLogHandler() }),
            now: @escaping @Sendable () -> Date = WallClock.now,
            configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
            tracer: ServerTracer = .none
        ) {
            self.database = database
            self.bcryptCost = bcryptCost
            self.allowedSignInFailures = allowedSignInFailures
            self.cacheLifetime = cacheLifetime
            self.logger = logger
            self.now = now
            self.configure = configure
            self.tracer = tracer
        }
    }
}
