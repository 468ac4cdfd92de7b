import Crypto
import Foundation
import GangwayConsole
import GangwayProtocol
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import HTTPTypes
import Logging
import Testing

@testable import GangwayServer
@testable import GangwayServerStorage

/// `gangway admin keys replace-server-key`: every value sealed under the server key is
/// sealed under a new one, the server starts with the new key and finds every secret as
/// it was, an interrupted replacement goes on where it stopped, and none runs while a
/// server uses the database.
@Suite(
    "Server key replacement: every sealed value sealed anew, an interrupted one resumed, none while a server serves",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct ServerKeyReplacementTests {
    /// A value of every kind the server seals: a device's recovery secret, a
    /// destination's credential, an operator's second factor, a provider's client secret
    /// and refresh token, beside the keys every server has.
    static func seedSealed(_ api: API) async throws {
        let token = try await api.signIn("alice")
        _ = try await api.register(token: token)
        try api.expectStatus(
            try await api.admin(
                .put,
                "/admin/apps/checks/destinations/stock",
                json:
                    #"{"url": "https://stock.example.com", "authentication": "credential", "credentialHeader": "X-API-Key", "credential": "stock-secret-1"}"#
            ),
            .created
        )
        let server = api.fixture.server
        let key = server.keys.server
        try await server.storage.insertOperator(
            OperatorRecord(
                name: "ops.alice",
                role: .admin,
                passwordHash: "$2b$04$unused",
                sealedTOTPSecret: try key.seal(
                    Data(repeating: 7, count: TOTP.secretLength),
                    for: OperatorConsole.totpPurpose
                ),
                createdAt: Date()
            )
        )
        var app = try #require(try await server.storage.app(id: "checks"))
        app.authentication.provider = IdentityProvider(
            issuer: "https://idp.example.com",
            clientID: "gangway",
            sealedClientSecret: try key.seal(
                Data("client-secret".utf8),
                for: IdentityProvider.sealPurpose(appID: "checks")
            )
        )
        try await server.storage.updateApp(app)
        try await server.storage.insertProviderGrant(
            ProviderGrantRecord(
                originHash: Data(repeating: 1, count: 32),
                appID: "checks",
                username: "alice",
                issuer: "https://idp.example.com",
                sealedRefreshToken: try key.seal(
                    Data("provider-refresh".utf8),
                    for: FederationHandler.providerTokenPurpose(appID: "checks")
                ),
                accessExpiresAt: Date().addingTimeInterval(3600),
                createdAt: Date()
            )
        )
    }

    /// Every sealed value in the database, opened with `key`, by where it is; `nil` for
    /// one that does not open with it.
    static func opened(_ storage: ServerStorage, with key: ServerKey) async throws -> [String: Data?] {
        var values: [String: Data?] = [:]
        for (name, _) in SealedValues.secrets {
            guard let value = try await storage.secret(named: name) else { continue }
            values["secrets/\(name)"] = try? key.open(value, for: name, plainLength: -1)
        }
        for column in SealedValues.columns {
            for cell in try await storage.sealedCells(column.column) {
                let purpose = try column.purpose(cell.row)
                values["\(column.column.table)/\(purpose)"] = try? key.open(cell.value, for: purpose, plainLength: -1)
            }
        }
        for app in try await storage.apps() {
            guard let sealed = app.authentication.provider?.sealedClientSecret else { continue }
            values["apps/\(app.id)"] = try? key.open(
                sealed,
                for: IdentityProvider.sealPurpose(appID: app.id),
                plainLength: -1
            )
        }
        return values
    }

    static func key(in file: URL) throws -> ServerKey {
        ServerKey(SymmetricKey(data: try #require(try PrivateFiles.read(file, secret: true))))
    }

    @Test(
        "every sealed value opens with the new key and not the old; the server starts with it and finds each secret as it was",
        arguments: Backend.available
    )
    func replacement(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        var activationKey = ""
        try await fixture.runSeeded { api in
            try await Self.seedSealed(api)
            activationKey = try await api.fixture.server.activationPublicKeyPEM()
        }
        let server = fixture.server
        let configuration = server.configuration
        let old = server.keys.server
        // Read as stored, past the server's cache.
        let storage = ServerStorage(server.storage.driver)
        let before = try await storage.withConnections { try await Self.opened(storage, with: old) }
        // Every kind is there, and opens.
        for kind in [
            "secrets/", "signing_keys/", "devices/", "operators/", "provider_grants/", "destinations/", "apps/",
        ] {
            #expect(before.keys.contains { $0.hasPrefix(kind) }, "\(kind)")
        }
        #expect(before.values.allSatisfy { $0 != nil })
        let oldBytes = try #require(try PrivateFiles.read(configuration.serverKeyPath, secret: true))

        let outcome = try await ServerKeyReplacement.replace(configuration: configuration, logger: fixture.logs.logger)
        #expect(outcome.resealed == before.count && outcome.alreadyNew == 0 && outcome.unreadable == 0)
        let new = try Self.key(in: configuration.serverKeyPath)
        try await storage.withConnections { () async throws in
            #expect(try await Self.opened(storage, with: new) == before)
            #expect(try await Self.opened(storage, with: old).values.allSatisfy { $0 == nil })
        }
        // The old key is kept apart, 0600; nothing is left waiting.
        let replaced = try #require(outcome.replacedKey)
        #expect(try PrivateFiles.read(replaced, secret: true) == oldBytes)
        #expect(
            PrivateFiles.mode(of: replaced.path) == 0o600
                && PrivateFiles.mode(of: configuration.serverKeyPath.path) == 0o600
        )
        #expect(
            !FileManager.default.fileExists(
                atPath: ServerKeyReplacement.nextKeyFile(of: configuration.serverKeyPath).path
            )
        )
        #expect(!fixture.logs.text.contains("stock-secret-1") && !fixture.logs.text.contains("client-secret"))

        // A server started now uses the new key, and its keys are the ones it had.
        let restarted = try await MobileServicesServer(
            configuration: configuration,
            logger: fixture.logs.logger,
            now: fixture.clock.now
        )
        #expect(restarted.keys.changeSealingPublicKey == server.keys.changeSealingPublicKey)
        try await restarted.storage.withConnections { () async throws in
            #expect(try await restarted.activationPublicKeyPEM() == activationKey)
            let kids = try await restarted.keys.idTokens.published(at: Date()).map(\.kid)
            #expect(kids.count == 1 && before.keys.contains { $0.hasSuffix(kids[0]) })
            let destination = try #require(try await restarted.storage.destination(appID: "checks", name: "stock"))
            #expect(DestinationProxy.credential(of: destination, keys: restarted.keys)?.value == "stock-secret-1")
        }
        // The old key is refused now, as any other would be.
        try PrivateFiles.write(oldBytes, to: configuration.serverKeyPath)
        await #expect(throws: ServerKeyError.mismatch(path: configuration.serverKeyPath.path)) {
            _ = try await MobileServicesServer(configuration: configuration, logger: fixture.logs.logger)
        }
    }

    @Test(
        "interrupted mid-way, no server starts; run again, it seals the rest; interrupted after the switch, it moves the files",
        arguments: Backend.available
    )
    func resumed(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in try await Self.seedSealed(api) }
        let server = fixture.server
        // Read and written as stored, past the server's cache.
        let storage = ServerStorage(server.storage.driver)
        let old = server.keys.server
        try await storage.withConnections { try await resume(fixture, storage, old) }
    }

    private func resume(_ fixture: ServerFixture, _ storage: ServerStorage, _ old: ServerKey) async throws {
        let configuration = fixture.server.configuration
        let before = try await Self.opened(storage, with: old)

        // As a run stopped after the new key was written and two values sealed with it.
        let nextFile = ServerKeyReplacement.nextKeyFile(of: configuration.serverKeyPath)
        let nextBytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        try PrivateFiles.write(nextBytes, to: nextFile)
        let next = ServerKey(SymmetricKey(data: nextBytes))
        try await storage.setSecret(named: ServerKey.nextCheckName, to: next.checkValue)
        let devices = try #require(SealedValues.columns.first { $0.column.table == "devices" })
        for cell in try await storage.sealedCells(devices.column) {
            let purpose = try devices.purpose(cell.row)
            let plain = try old.open(cell.value, for: purpose, plainLength: -1)
            #expect(try await storage.replaceSealedCell(devices.column, cell, with: try next.seal(plain, for: purpose)))
        }
        let name = ServerKeys.StoredName.changeSealing
        let plain = try old.open(try #require(try await storage.secret(named: name)), for: name, plainLength: -1)
        try await storage.setSecret(named: name, to: try next.seal(plain, for: name))

        // No server starts meanwhile: its secrets are under two keys.
        await #expect(throws: ServerKeyError.replacing(path: configuration.serverKeyPath.path)) {
            _ = try await MobileServicesServer(configuration: configuration, logger: fixture.logs.logger)
        }

        let outcome = try await ServerKeyReplacement.replace(configuration: configuration, logger: fixture.logs.logger)
        #expect(outcome.alreadyNew == 2 && outcome.resealed == before.count - 2 && outcome.unreadable == 0)
        #expect(try PrivateFiles.read(configuration.serverKeyPath, secret: true) == nextBytes)
        #expect(try await Self.opened(storage, with: next) == before)
        _ = try await MobileServicesServer(configuration: configuration, logger: fixture.logs.logger)

        // As a run stopped after the database switched, before the files moved: run
        // again, it only moves them.
        let thirdBytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        try PrivateFiles.write(thirdBytes, to: nextFile)
        let third = ServerKey(SymmetricKey(data: thirdBytes))
        let sealed = try await storage.secret(named: name)
        try await storage.setSecret(named: name, to: try third.seal(plain, for: name))
        try await storage.setSecret(named: ServerKey.checkName, to: third.checkValue)
        let filesOnly = try await ServerKeyReplacement.replace(
            configuration: configuration,
            logger: fixture.logs.logger
        )
        #expect(filesOnly.resealed == 0 && filesOnly.alreadyNew == 0)
        #expect(try PrivateFiles.read(configuration.serverKeyPath, secret: true) == thirdBytes)
        #expect(sealed != nil)
    }

    @Test("refused, changing nothing: no key, another key, no database, a server on the directory, one on PostgreSQL")
    func refusals() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { _ in }
        let configuration = fixture.server.configuration
        let keyFile = configuration.serverKeyPath
        let bytes = try #require(try PrivateFiles.read(keyFile, secret: true))
        let logger = fixture.logs.logger

        // A server holding the directory.
        let hold = try DirectoryLock(configuration.dataDirectory, holder: "gangway serve")
        await #expect(throws: PrivateFileError.self) {
            _ = try await ServerKeyReplacement.replace(configuration: configuration, logger: logger)
        }
        hold.release()

        // Another key in the file.
        try PrivateFiles.write(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }, to: keyFile)
        await #expect(throws: ServerKeyError.mismatch(path: keyFile.path)) {
            _ = try await ServerKeyReplacement.replace(configuration: configuration, logger: logger)
        }
        // No key at all.
        try FileManager.default.removeItem(at: keyFile)
        await #expect(throws: ServerKeyReplacement.Refusal.self) {
            _ = try await ServerKeyReplacement.replace(configuration: configuration, logger: logger)
        }
        try PrivateFiles.write(bytes, to: keyFile)
        #expect(!FileManager.default.fileExists(atPath: ServerKeyReplacement.nextKeyFile(of: keyFile).path))
        #expect(try await fixture.server.storage.secret(named: ServerKey.nextCheckName) == nil)

        // A directory with a key and no database.
        let empty = try TemporaryDirectory()
        defer { empty.remove() }
        try PrivateFiles.write(bytes, to: empty.url.appendingPathComponent(ServerConfiguration.serverKeyFileName))
        await #expect(throws: ServerKeyReplacement.Refusal.self) {
            _ = try await ServerKeyReplacement.replace(
                configuration: ServerConfiguration(dataDirectory: empty.url),
                logger: logger
            )
        }
        #expect(
            !FileManager.default.fileExists(
                atPath: empty.url.appendingPathComponent(ServerConfiguration.sqliteFileName).path
            )
        )
    }

    @Test(
        "on PostgreSQL, a server listening on the database, from any machine, stops it",
        .enabled(if: TestDatabase.postgresqlFromEnvironment != nil, "needs \(TestDatabase.environmentVariable)")
    )
    func serving() async throws {
        let fixture = try await ServerFixture(backend: .postgresql)
        try await fixture.runSeeded { api in
            let serving = try await eventually {
                (try? await (api.fixture.server.storage.driver as? PostgresDriver)?.serversListening()) == 1
            }
            #expect(serving)
            await #expect(throws: ServerKeyReplacement.Refusal.self) {
                _ = try await ServerKeyReplacement.replace(
                    configuration: api.fixture.server.configuration,
                    logger: api.fixture.logs.logger
                )
            }
        }
    }

    @Test(
        "every column that holds bytes is a hash, one of three known to be no secret, or a sealed column the replacement knows"
    )
    func everySealedColumn() throws {
        let schema = ServerSchema.migrations(.sqlite).flatMap(\.statements).joined(separator: "\n")
        var columns: Set<String> = []
        for match in schema.matches(of: /CREATE TABLE (\w+) \(([^;]*?)\)\s*$/.anchorsMatchLineEndings()) {
            for column in String(match.output.2).matches(of: /(\w+) BLOB/) {
                columns.insert("\(match.output.1).\(column.output.1)")
            }
        }
        for match in schema.matches(of: /ALTER TABLE (\w+) ADD COLUMN (\w+) BLOB/) {
            columns.insert("\(match.output.1).\(match.output.2)")
        }
        #expect(columns.contains("devices.recovery_secret") && columns.contains("sessions.token_hash"))
        let sealed = Set(SealedValues.columns.map { "\($0.column.table).\($0.column.column)" })
        // Bytes that are no secret: a device's public key, the address a spent refresh
        // token came from, and an activation key's endorsement (every link carries it).
        let notSecret = ["devices.change_key", "refresh_tokens.used_from", "signing_keys.endorsement"]
        let unsealed = columns.filter { !$0.hasSuffix("_hash") && $0 != "secrets.value" && !notSecret.contains($0) }
        #expect(unsealed == sealed)
    }
}
