import Foundation
import GangwayProtocol
import GangwayServerTesting
import GangwayTesting
import Testing

@testable import GangwayServerStorage

@Suite("App settings are stored in a shape storage owns, with its version", .tags(.postgres), .skipsTags)
struct StoredAppSettingsTests {
    static let time = Date(timeIntervalSince1970: 1_800_000_000)

    /// A row's settings as schema v17 wrote them (the API's JSON of that day, keys
    /// sorted), every field set.
    static let rowBefore = """
        {"blockWipingPolicy":{"blockDisconnectedPeriod":7,"blockWipeEnabled":true,"wipeDisconnectedPeriod":30},\
        "consentSettings":{"consentVersion":"c2","eulaVersion":"e3"},\
        "dataSettings":{"entitySets":{"checks":{"allowsCreation":true,"writableFields":["status","value"]}}},\
        "logSettings":{"logEnabled":true,"logLevel":"warning","maxEntriesPerUpload":50,"uploadIntervalSeconds":600},\
        "passwordPolicy":{"passwordPolicyAllowsSkip":false,"passwordPolicyBlocksCommon":true,\
        "passwordPolicyDigitRequired":true,"passwordPolicyEnabled":true,"passwordPolicyExpiresInNDays":90,\
        "passwordPolicyFingerprintEnabled":false,"passwordPolicyHistorySize":3,"passwordPolicyIsDigitsOnly":false,\
        "passwordPolicyLockTimeout":300,"passwordPolicyLowerRequired":true,"passwordPolicyMinLength":10,\
        "passwordPolicyMinUniqueChars":4,"passwordPolicyRetryLimit":6,"passwordPolicySpecialRequired":false,\
        "passwordPolicyUpperRequired":true},\
        "recoverySettings":{"passcodeResetKeepsData":true},\
        "sharedDeviceSettings":{"allowUploadPendingChangesFromPreviousUser":false}}
        """

    /// The settings ``rowBefore`` holds, written field by field.
    static let settings = Components.Schemas.AppSettings(
        passwordPolicy: .init(
            passwordPolicyEnabled: true,
            passwordPolicyMinLength: 10,
            passwordPolicyIsDigitsOnly: false,
            passwordPolicyDigitRequired: true,
            passwordPolicyUpperRequired: true,
            passwordPolicyLowerRequired: true,
            passwordPolicySpecialRequired: false,
            passwordPolicyMinUniqueChars: 4,
            passwordPolicyRetryLimit: 6,
            passwordPolicyLockTimeout: 300,
            passwordPolicyExpiresInNDays: 90,
            passwordPolicyHistorySize: 3,
            passwordPolicyFingerprintEnabled: false,
            passwordPolicyAllowsSkip: false,
            passwordPolicyBlocksCommon: true
        ),
        sharedDeviceSettings: .init(allowUploadPendingChangesFromPreviousUser: false),
        blockWipingPolicy: .init(blockWipeEnabled: true, blockDisconnectedPeriod: 7, wipeDisconnectedPeriod: 30),
        logSettings: .init(logEnabled: true, logLevel: .warning, maxEntriesPerUpload: 50, uploadIntervalSeconds: 600),
        consentSettings: .init(eulaVersion: "e3", consentVersion: "c2"),
        recoverySettings: .init(passcodeResetKeepsData: true),
        dataSettings: .init(
            entitySets: .init(additionalProperties: [
                "checks": .init(writableFields: ["status", "value"], allowsCreation: true)
            ])
        )
    )

    static func storedRow(_ storage: ServerStorage) async throws -> (text: String, version: Int64) {
        let rows = try await storage.driver.read("SELECT settings, settings_version FROM apps WHERE id = 'crew'")
        let row = try #require(rows.first)
        return (try row("settings"), try row("settings_version"))
    }

    @Test(
        "a row written before the shape was storage's reads as the same settings, and is written back unchanged",
        arguments: Backend.available
    )
    func migrated(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend, before: "v18") { storage in
            try await storage.execute(
                """
                INSERT INTO apps (id, name, settings, created_at)
                VALUES ('crew', 'Crew', \(Self.rowBefore), \(Self.time))
                """
            )
            try await storage.migrate()
            let app = try #require(try await storage.app(id: "crew"))
            #expect(app.settings == Self.settings)
            try await storage.updateApp(app)
            let stored = try await Self.storedRow(storage)
            #expect(stored.text == Self.rowBefore)
            #expect(stored.version == StoredAppSettings.version)
        }
    }

    @Test("what the API sends is stored field by field and read back whole, unset parts left out")
    func roundTrip() throws {
        for settings in [Self.settings, .defaults, Components.Schemas.AppSettings()] {
            let text = try ServerSchema.encode(settings)
            #expect(try ServerSchema.decodeSettings(text, version: StoredAppSettings.version) == settings)
        }
        #expect(try ServerSchema.encode(Components.Schemas.AppSettings()) == "{}")
    }

    @Test("a row of a version this server does not know, or naming a log level it does not know, is refused")
    func unknownShapes() throws {
        let future = #expect(throws: StorageError.self) {
            try ServerSchema.decodeSettings(Self.rowBefore, version: StoredAppSettings.version + 1)
        }
        #expect(future?.code == .corrupt)
        #expect(future?.message == "stored app settings are of version 2; this server reads version 1")
        let level = #expect(throws: StorageError.self) {
            try ServerSchema.decodeSettings(#"{"logSettings":{"logLevel":"loud"}}"#, version: 1)
        }
        #expect(level?.code == .corrupt)
        let shape = #expect(throws: StorageError.self) {
            try ServerSchema.decodeSettings(#"{"passwordPolicy":{"passwordPolicyMinLength":"ten"}}"#, version: 1)
        }
        #expect(shape?.code == .corrupt)
    }

    @Test("a newer server's row is refused where the app is read, on either database", arguments: Backend.available)
    func newerRow(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            try await storage.insertApp(
                AppRecord(id: "crew", name: "Crew", settings: Self.settings, createdAt: Self.time)
            )
            try await storage.execute("UPDATE apps SET settings_version = 2 WHERE id = 'crew'")
            let error = await #expect(throws: StorageError.self) { try await storage.app(id: "crew") }
            #expect(error?.code == .corrupt)
        }
    }
}
