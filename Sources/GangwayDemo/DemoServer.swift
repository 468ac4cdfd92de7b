import Foundation
import GangwayClient
import GangwayPolicy
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwaySystem
import GangwayTerminal
import Logging

/// The server `gangway` runs in-process when no `--server` is given: SQLite under the
/// data directory, on a loopback port, seeded at first start with the demo app, two
/// demo users and the app's aircraft checks.
///
/// The port is chosen free at first start and kept (in `port`), so the server's URL,
/// and the activation links and QR codes that carry it, stay the same from one start to
/// the next; when another program holds it, a new free port is taken and kept.
public struct DemoServer: EmbeddedServer {
    let server: MobileServicesServer
    let directory: URL
    let logger: Logger
    /// Whether the demo app and users belong here: the database is new, or an earlier
    /// start seeded it. A database another server made (`gangway serve`) is never seeded:
    /// demo users with printed passwords have no place in it.
    public let isDemo: Bool
    /// The server's directory, held while this value lives: one server per database.
    let hold: DirectoryLock
    /// The port this server listened on before, when another program holds it now: the
    /// server listens on another, and what was made for the old address (activation links,
    /// QR codes) no longer reaches it.
    public let keptPortTaken: Int?
    /// The checks of a larger operation its first start seeds beside the demo's own
    /// (``seed(generatedChecks:)``).
    let generatedChecks: Int

    /// Opens (or creates) the server's database under `directory`. One that cannot be
    /// opened leaves no lock of its own behind.
    /// - Throws: ``PrivateFileError/inUse`` when another process serves `directory`.
    /// - Parameters:
    ///   - holder: What runs it, for the message a second process shows.
    ///   - generatedChecks: The checks of a larger operation a first start seeds beside
    ///     the demo's own (``seed(generatedChecks:)``); none unless given.
    ///   - keyPublicationLead: How long a new signing key is published before it signs
    ///     (``GangwayServer/ServerConfiguration/keyPublicationLead``).
    ///   - keyFile: The server key, when not in `directory`
    ///     (``GangwayServer/ServerConfiguration/keyFile``).
    public init(
        directory: URL,
        bcryptCost: UInt8,
        logger: Logger,
        holder: String,
        generatedChecks: Int = 0,
        keyPublicationLead: Duration = ServerConfiguration.defaultKeyPublicationLead,
        keyFile: URL? = nil
    ) async throws {
        let hold = try DirectoryLock(directory, holder: holder)
        do {
            try await self.init(
                directory: directory,
                bcryptCost: bcryptCost,
                logger: logger,
                hold: hold,
                generatedChecks: generatedChecks,
                keyPublicationLead: keyPublicationLead,
                keyFile: keyFile
            )
        } catch {
            hold.releaseRemovingWhatItMade()
            throw error
        }
    }

    private init(
        directory: URL,
        bcryptCost: UInt8,
        logger: Logger,
        hold: DirectoryLock,
        generatedChecks: Int,
        keyPublicationLead: Duration,
        keyFile: URL?
    ) async throws {
        self.hold = hold
        self.generatedChecks = generatedChecks
        self.directory = directory
        self.logger = logger
        let kept = (try? String(contentsOf: directory.appendingPathComponent("port"), encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let keptIsFree = kept.map(LoopbackPort.isFree) ?? false
        keptPortTaken = keptIsFree ? nil : kept
        let configuration = ServerConfiguration(
            host: "127.0.0.1",
            port: keptIsFree ? kept ?? 0 : 0,
            dataDirectory: directory,
            bcryptCost: bcryptCost,
            keyFile: keyFile,
            keyPublicationLead: keyPublicationLead
        )
        let files = FileManager.default
        let marker = directory.appendingPathComponent(Self.demoMarker)
        // A new database is the demo's from before its first byte: a first start stopped
        // before its seed finished (Ctrl-C) leaves a database the next start still seeds.
        if !files.fileExists(atPath: configuration.sqlitePath.path), !files.fileExists(atPath: marker.path) {
            try PrivateFiles.write(Data(Self.unseededNote.utf8), to: marker)
        }
        isDemo = files.fileExists(atPath: marker.path)
        server = try await MobileServicesServer(configuration: configuration, logger: logger)
    }

    /// The file that marks a database as the demo's; it says whether the seed finished.
    static let demoMarker = "demo"
    static let unseededNote = "Made by gangway's demo; the demo app and users are not all there yet.\n"
    static let seededNote = "Seeded with the demo app and users by gangway.\n"

    /// The key activation payloads are signed with now, for the device to pin.
    public func activationKeyPEM() async throws -> String { try await server.activationPublicKeyPEM() }

    /// The demo app's settings beyond the defaults: devices may record a check's status,
    /// reading and note, and add checks, offline.
    static var appSettings: Components.Schemas.AppSettingsUpdate {
        Components.Schemas.AppSettingsUpdate(
            dataSettings: .init(
                entitySets: .init(additionalProperties: [
                    ChecksText.entitySet: .init(writableFields: ["status", "reading", "note"], allowsCreation: true)
                ])
            )
        )
    }

    /// The demo's seed: its app, its users and the app's checks.
    public static var seed: ServerSeed { seed(generatedChecks: 0) }

    /// The demo's seed, with `generatedChecks` more checks of a larger operation spread
    /// over ten stations (``GangwayTerminal/DemoApp/generatedChecks(_:)``): then each
    /// check has a station, and each user receives their own station's checks only
    /// (alice CDG, where the demo's five checks are; bob ORY).
    public static func seed(generatedChecks: Int) -> ServerSeed {
        let stations = generatedChecks > 0
        let checks =
            stations
            ? DemoApp.checks.map { check in (check.id, check.fields.merging(["station": "CDG"]) { $1 }) }
                + DemoApp.generatedChecks(generatedChecks) : DemoApp.checks
        return ServerSeed(
            apps: [
                SeedApp(
                    id: DemoApp.appID,
                    name: DemoApp.appName,
                    emailDomains: [DemoApp.emailDomain],
                    settings: appSettings,
                    schemas: [ChecksText.entitySet: stations ? DemoApp.stationChecksSchema : DemoApp.checksSchema],
                    subsets: stations ? [ChecksText.entitySet: DemoApp.stationSubset] : [:]
                )
            ],
            users: DemoApp.users.map {
                SeedUser(
                    $0.username,
                    password: Secret($0.password),
                    displayName: $0.displayName,
                    attributes: stations
                        ? [DemoApp.stationSubset.attribute: DemoApp.userStations[$0.username] ?? []] : [:]
                )
            },
            entities: checks.map {
                SeedEntity(app: DemoApp.appID, entitySet: ChecksText.entitySet, id: $0.0, fields: $0.1)
            }
        )
    }

    /// Serves the database in `directory` while `body` runs with its URL, then stops:
    /// what `gangway admin` starts when nothing answers there. It logs only critical
    /// messages (`GANGWAY_LOG_LEVEL` sets another level), so the command's own output
    /// stays clean; a database another server made is served, never seeded.
    /// A new signing key is published for `keyPublicationLead` before it signs; the server
    /// key is `keyFile` when given.
    /// - Throws: ``GangwaySystem/PrivateFileError/inUse`` when another process serves it.
    public static func serving<Result: Sendable>(
        directory: URL,
        bcryptCost: UInt8,
        holder: String,
        keyPublicationLead: Duration = ServerConfiguration.defaultKeyPublicationLead,
        keyFile: URL? = nil,
        _ body: @Sendable (URL) async throws -> Result
    ) async throws -> Result {
        let demo = try await DemoServer(
            directory: directory,
            bcryptCost: bcryptCost,
            logger: DeviceApp.standardErrorLogger(label: "gangway.admin", default: .critical),
            holder: holder,
            keyPublicationLead: keyPublicationLead,
            keyFile: keyFile
        )
        // For the command's time only: no crew backend, which would outlive nothing.
        return try await demo.serving(withCrew: false, body)
    }

    /// Serves (seeded) while `body` runs, then finishes the requests in flight and stops,
    /// whether `body` returned or threw. Once it listens, the port and the URL are written
    /// to `port` and `url` in the server's directory (for the next start and for
    /// `gangway admin`), owner-only; the URL goes when the server stops, unless another
    /// server wrote its own since, so nothing is sent to whatever listens there next. When
    /// it or `body` throws, the lock this value made goes too
    /// (``GangwaySystem/DirectoryLock/releaseRemovingWhatItMade()``).
    /// The demo airline's crew backend runs beside it, behind the demo app's destination
    /// `crew` (the device app's server; not a command's, which serves without it).
    public func serving<Result: Sendable>(_ body: (URL) async throws -> Result) async throws -> Result {
        try await serving(withCrew: true, body)
    }

    private func serving<Result: Sendable>(
        withCrew: Bool,
        _ body: (URL) async throws -> Result
    ) async throws -> Result {
        let host = ServerHost(server: server, logger: logger)
        let urlFile = ServerURLFile(directory: directory)
        defer { urlFile.removeIfUnchanged() }
        do {
            return try await Interruption.withCleanup({ urlFile.removeIfUnchanged() }) {
                try await serving(host, urlFile: urlFile, withCrew: withCrew, body)
            }
        } catch {
            // The URL while the lock is still held: it was written under it.
            urlFile.removeIfUnchanged()
            hold.releaseRemovingWhatItMade()
            throw error
        }
    }

    private func serving<Result: Sendable>(
        _ host: ServerHost,
        urlFile: ServerURLFile,
        withCrew: Bool,
        _ body: (URL) async throws -> Result
    ) async throws -> Result {
        try await host.serving { port in
            let url = URL(string: "http://127.0.0.1:\(port)")!
            // The port is kept for the next start, as devices know the server by it: the
            // demo's server does; one `gangway serve` made, opened here for a moment
            // (`gangway admin` on its directory), listens where its operator says.
            if isDemo {
                try PrivateFiles.write(Data("\(port)\n".utf8), to: directory.appendingPathComponent("port"))
            }
            try urlFile.write(url)
            try await seed()
            guard isDemo, withCrew else { return try await body(url) }
            // The demo airline's own backend, reached through the app's destination.
            let crew = CrewBackend(logger: logger, now: server.now)
            return try await crew.serving { backend in
                try await Self.connect(crew, at: backend, to: server, serverURL: url, issuerBase: url.absoluteString)
                return try await body(url)
            }
        }
    }

    /// Points the demo app's destination `crew` at the crew backend listening at
    /// `backend`, and has the backend trust the server's identities: unless the app is
    /// not there, or its `crew` goes to an address other than a loopback one (an
    /// operator's own, which stays).
    ///
    /// - Parameters:
    ///   - serverURL: Where the backend reads the server's keys.
    ///   - issuerBase: The server's public URL, which the app's issuer starts with.
    /// - Returns: Whether the destination now goes to `backend`.
    @discardableResult
    public static func connect(
        _ crew: CrewBackend,
        at backend: URL,
        to server: MobileServicesServer,
        serverURL: URL,
        issuerBase: String
    ) async throws -> Bool {
        let storage = server.storage
        guard try await storage.app(id: DemoApp.appID) != nil else { return false }
        let existing = try await storage.destination(appID: DemoApp.appID, name: CrewAPI.destination)
        if let existing, URL(string: existing.url)?.host != "127.0.0.1" { return false }
        _ = try await storage.putDestination(
            DestinationRecord(
                appID: DemoApp.appID,
                name: CrewAPI.destination,
                url: backend.absoluteString,
                authentication: .identity,
                createdAt: existing?.createdAt ?? server.now()
            )
        )
        crew.trust(server: serverURL, appID: DemoApp.appID, issuer: "\(issuerBase)/apps/\(DemoApp.appID)")
        return true
    }

    /// Creates the demo app, users and checks unless an earlier start did, in the demo's
    /// own database only (see ``isDemo``). A seed an earlier start began and did not finish
    /// goes on: what it made stays, the rest is made.
    func seed() async throws {
        let marker = directory.appendingPathComponent(Self.demoMarker)
        guard isDemo, try PrivateFiles.read(marker) != Data(Self.seededNote.utf8) else { return }
        let seed = Self.seed(generatedChecks: generatedChecks)
        let parts =
            seed.apps.map { ServerSeed(apps: [$0]) } + seed.users.map { ServerSeed(users: [$0]) }
            + [ServerSeed(entities: seed.entities)]
        for part in parts {
            do throws(SeedError) {
                try await server.seed(part)
            } catch {
                guard error == .appExists || error == .userExists else { throw error }
            }
        }
        try PrivateFiles.write(Data(Self.seededNote.utf8), to: marker)
    }
}
