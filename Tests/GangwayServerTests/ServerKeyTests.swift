import Crypto
import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import Testing

@Suite(
    "The server key: the signing key and recovery secrets are sealed before they reach the database",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct ServerKeyTests {
    @Test(
        "the database alone holds neither the activation signing key nor a recovery secret",
        arguments: Backend.available
    )
    func databaseAloneRevealsNothing(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let registration = try await api.register(token: try await api.signIn("alice"))
            let text = try #require(registration.recoverySecret)
            let secret = try #require(Data(base64Encoded: text))
            let storage = fixture.server.storage
            let storedKey = try #require(try await storage.signingKeys(.activation).first?.sealedKey)
            #expect(storedKey.count == 60)
            #expect((try? P256.Signing.PrivateKey(rawRepresentation: storedKey)) == nil)
            let device = try #require(
                try await storage.device(appID: "checks", username: "alice", deviceID: "device-1")
            )
            #expect(device.recoverySecret != secret)
            #expect(device.recoverySecret.range(of: secret) == nil)
            if backend == .sqlite {
                let path = fixture.server.configuration.sqlitePath.path
                let files = [path, path + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }
                #expect(files.allSatisfy { $0.range(of: secret) == nil })
            }
            let keyFile = fixture.server.configuration.serverKeyPath.path
            let mode = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600)
        }
    }

    @Test("a server with another key, or none, refuses to start over the database; --key-file names the right one")
    func wrongKeyRefused() async throws {
        let fixture = try await ServerFixture()
        let keyFile = fixture.server.configuration.serverKeyPath
        let key = try Data(contentsOf: keyFile)
        try FileManager.default.removeItem(at: keyFile)
        await #expect(throws: ServerKeyError.missing(path: keyFile.path)) {
            _ = try await MobileServicesServerRestart.restart(fixture)
        }
        // Key files as an operator copies them: readable by their owner only.
        try PrivateFiles.write(Data(repeating: 7, count: 32), to: keyFile)
        await #expect(throws: ServerKeyError.mismatch(path: keyFile.path)) {
            _ = try await MobileServicesServerRestart.restart(fixture)
        }
        try PrivateFiles.write(Data(repeating: 7, count: 5), to: keyFile)
        await #expect(throws: ServerKeyError.unreadable(path: keyFile.path)) {
            _ = try await MobileServicesServerRestart.restart(fixture)
        }
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("gangway-key-\(UUID())")
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        try key.write(to: elsewhere)
        chmod(elsewhere.path, 0o644)
        var readable = fixture.server.configuration
        readable.keyFile = elsewhere
        // A key file others can read is refused, before anything is sealed with it.
        await #expect(throws: PrivateFileError.unsafe) { _ = try await MobileServicesServer(configuration: readable) }
        chmod(elsewhere.path, 0o600)
        var configuration = fixture.server.configuration
        configuration.keyFile = elsewhere
        let restarted = try await MobileServicesServer(configuration: configuration)
        #expect(try await restarted.activationPublicKeyPEM() == (try await fixture.server.activationPublicKeyPEM()))
        #expect(!String(describing: ServerKeyError.mismatch(path: "k")).contains(key.base64EncodedString()))
    }

    @Test("a signing key and recovery secrets stored before sealing keep working, and are sealed")
    func plainValuesFromBefore() async throws {
        let fixture = try await ServerFixture()
        let oldKey = P256.Signing.PrivateKey()
        let oldSecret = Data((0..<32).map { UInt8($0) })
        try await fixture.runSeeded { api in
            _ = try await api.register(token: try await api.signIn("alice"))
            let storage = fixture.server.storage
            // As a version before activation keys rotated left it: the key a secret of its own.
            _ = try await storage.driver.write("DELETE FROM signing_keys WHERE purpose = 'activation'")
            try await storage.setSecret(named: "activation-signing-key", to: oldKey.rawRepresentation)
            var device = try #require(
                try await storage.device(appID: "checks", username: "alice", deviceID: "device-1")
            )
            device.recoverySecret = oldSecret
            try await storage.saveDevice(device)
        }
        let restarted = try await MobileServicesServerRestart.restart(fixture)
        #expect(try await restarted.activationPublicKeyPEM() == oldKey.publicKey.pemRepresentation)
        #expect(try await restarted.storage.secret(named: "activation-signing-key") == nil)
        #expect(try await restarted.storage.signingKeys(.activation).map(\.sealedKey.count) == [60])
        try await TestServer(server: restarted, adminToken: fixture.adminToken).run { running in
            let api = API(running: running, fixture: fixture)
            let registration = try await api.register(token: try await api.signIn("alice"))
            #expect(registration.recoverySecret == oldSecret.base64EncodedString())
        }
        let stored = try #require(
            try await restarted.storage.device(appID: "checks", username: "alice", deviceID: "device-1")
        )
        #expect(stored.recoverySecret.range(of: oldSecret) == nil, "the recovery secret is sealed now")
    }
}
