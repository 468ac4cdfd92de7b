import Foundation
import GangwayAdmin
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayServerStorage
import GangwayServerTesting
import GangwayServices
import GangwayStore
import GangwayTesting
import HTTPTypes
import Logging
import Testing

@Suite("The client maps the server's answers to typed results")
struct MobileServicesClientTests {
    @Test func aServerThatIsNotThereIsUnreachable() async {
        let client = MobileServicesClient(serverURL: URL(string: "http://127.0.0.1:1")!)
        let error = await #expect(throws: ServiceError.unreachable) {
            _ = try await client.checkVersion(appID: "checks", version: "1.0")
        }
        // Named, so the person knows which address to check.
        #expect(error?.summary == "The server at http://127.0.0.1:1 cannot be reached.")
        let admin = AdminClient(serverURL: URL(string: "http://127.0.0.1:1")!, adminToken: "unused")
        let adminError = await #expect(throws: ServiceError.unreachable) { _ = try await admin.apps() }
        #expect(adminError?.serverURL == URL(string: "http://127.0.0.1:1"))
    }

    /// A refused connection means the device is offline now: the default transport must
    /// not keep trying until the request's deadline (an hour here; AsyncHTTPClient's
    /// shared client would). A minute is the bound, far beyond an immediate failure.
    @Test func aRefusedConnectionFailsAtOnceNotAtTheDeadline() async throws {
        let client = MobileServicesClient(
            serverURL: URL(string: "http://127.0.0.1:1")!,
            transport: ServiceTransport.standard(timeout: .seconds(3_600))
        )
        let failure = await withTaskGroup(of: ServiceError?.self) { group in
            group.addTask {
                do {
                    _ = try await client.checkVersion(appID: "checks", version: "1.0")
                    return nil
                } catch let error as ServiceError {
                    return error
                } catch {
                    return nil
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(60))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        #expect(failure == .unreachable)
    }

    @Test func signInFailuresCarryTheServersCodeAndMessage() async throws {
        try await TestServer.run(seed: .checks) { server in
            let client = MobileServicesClient(serverURL: server.url)
            do {
                _ = try await client.signIn(appID: "checks", username: "alice", password: "nope", deviceID: "d1")
                Issue.record("a wrong password signed in")
            } catch let error as ServiceError {
                #expect(error == .invalidCredentials)
                #expect(error.status == 401 && error.serverCode == "AUTH_FAILED")
                #expect(error.serverMessage?.isEmpty == false)
            }
            await #expect(throws: ServiceError.notFound) {
                _ = try await client.signIn(
                    appID: "nope",
                    username: "alice",
                    password: "alice-password",
                    deviceID: "d1"
                )
            }
            try await server.admin(.patch, "/admin/users/bob", json: #"{"blocked": true}"#)
            // A blocked user's right password gets the wrong password's answer.
            await #expect(throws: ServiceError.invalidCredentials) {
                _ = try await client.signIn(appID: "checks", username: "bob", password: "bob-password", deviceID: "d1")
            }
        }
    }

    @Test func theSettingsExchangeIsReadIntoGangwaysTypes() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await server.updateSettings(
                #"""
                {"passwordPolicy": {"passwordPolicyMinLength": 12, "passwordPolicyLockTimeout": 60,
                 "passwordPolicyFingerprintEnabled": false},
                 "sharedDeviceSettings": {"allowUploadPendingChangesFromPreviousUser": false},
                 "blockWipingPolicy": {"blockWipeEnabled": true, "blockDisconnectedPeriod": 7, "wipeDisconnectedPeriod": 0},
                 "logSettings": {"logEnabled": true, "logLevel": "warning", "maxEntriesPerUpload": 2},
                 "consentSettings": {"eulaVersion": "3"}}
                """#
            )
            let client = MobileServicesClient(serverURL: server.url)
            let session = try await client.signIn(
                appID: "checks",
                username: "alice",
                password: "alice-password",
                deviceID: "d1"
            )
            #expect(session.user == ServerUser(id: "alice", displayName: "Alice"))
            let settings = try await client.settings(appID: "checks", token: session.token)
            let policy = try #require(settings.passcodeRequirement?.policy)
            #expect(policy.minimumLength == 12 && policy.lockTimeout == .seconds(60) && !policy.allowsBiometrics)
            #expect(!settings.allowsUploadOfPreviousUserChanges)
            #expect(settings.lockAfterDaysWithoutContact == 7 && settings.wipeAfterDaysWithoutContact == nil)
            #expect(settings.logUploadEnabled && settings.logLevel == .warning && settings.maxLogEntriesPerUpload == 2)
            #expect(settings.eulaVersion == "3")

            try await server.updateSettings(#"{"passwordPolicy": {"passwordPolicyEnabled": false}}"#)
            // The server caches app reads for a second.
            try await Task.sleep(for: .milliseconds(1_100))
            #expect(
                try await client.settings(appID: "checks", token: session.token).passcodeRequirement == .notRequired
            )
        }
    }

    @Test func logsAreUploadedAboveTheLevelInBatches() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await server.updateSettings(
                #"{"logSettings": {"logEnabled": true, "logLevel": "notice", "maxEntriesPerUpload": 2}}"#
            )
            let device = try ServicesDevice(server: server)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            let context = try #require(await app.manager.flowContext)
            let now = Date()
            let records = [
                LogRecord(time: now, level: .debug, message: "cache warm"),
                LogRecord(time: now, level: .notice, message: "check A320 saved"),
                LogRecord(time: now, level: .warning, message: "sync postponed", source: "sync"),
                LogRecord(time: now, level: .error, message: "upload failed"),
            ]
            #expect(try await device.services.uploadLogs(records, context: context) == 3)
            let body = try await server.admin(.get, "/admin/apps/checks/logs").body
            let text = String(decoding: body, as: UTF8.self)
            #expect(text.contains("sync postponed") && !text.contains("cache warm"))
        }
    }
}
