import Foundation
import GangwayAdmin
import GangwayFlows
import GangwayPolicy
import GangwayProtocol
import GangwayScreens
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayServices
import GangwayStore
import Testing

@Suite("AdminClient: the operator's calls, behind the admin token")
struct AdminClientTests {
    @Test func createsAppsAndUsersAndReportsConflictsAndBadTokens() async throws {
        try await TestServer.run(seed: .checks) { server in
            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            try await admin.createApp(id: "cabin", name: "Cabin checks", emailDomains: ["cabin.example"])
            try await admin.createUser("carol", password: "carol-password", displayName: "Carol")
            // The new user signs in to the new app.
            let session = try await MobileServicesClient(serverURL: server.url)
                .signIn(appID: "cabin", username: "carol", password: "carol-password", deviceID: "stand-3")
            #expect(session.user.displayName == "Carol")

            let again = await #expect(throws: ServiceError.refused) {
                try await admin.createApp(id: "cabin", name: "Cabin checks", emailDomains: [])
            }
            #expect(again?.status == 409)
            let taken = await #expect(throws: ServiceError.refused) {
                try await admin.createUser("carol", password: "another-password")
            }
            #expect(taken?.status == 409)
            let weak = await #expect(throws: ServiceError.refused) {
                try await admin.createUser("dave", password: "short")
            }
            #expect(weak?.status == 400)
            // A token the server does not hold is not even sent: the server cannot prove
            // it holds its hash.
            let stranger = AdminClient(serverURL: server.url, adminToken: "gw_admin_not-the-token")
            let refused = await #expect(throws: ServiceError.serverNotProven) {
                try await stranger.createUser("erin", password: "erin-password")
            }
            #expect(refused.map { "\($0)" }?.contains("not-the-token") == false)
            #expect(try await admin.users().map(\.username).contains("erin") == false)
        }
    }

    @Test func changesThePolicyKeyByKeyAndReadsItAsADeviceWould() async throws {
        try await TestServer.run(seed: .checks) { server in
            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            let before = try await admin.app("checks")
            #expect(try await admin.apps().map(\.id) == ["checks"])
            var policy = PasscodePolicyChange()
            policy[.minimumLength] = .number(12)
            policy[.requiresDigit] = .flag(true)
            policy[.lockTimeout] = .number(60)
            let after = try await admin.updateApp(
                "checks",
                AppChange(minimumVersion: "2.1", passcodePolicy: policy, allowsUploadOfPreviousUserChanges: false)
            )
            #expect(after.settings.passcodeRequirement?.policy?.minimumLength == 12)
            #expect(after.settings.passcodeRequirement?.policy?.requiresDigit == true)
            #expect(after.settings.passcodeRequirement?.policy?.lockTimeout == .seconds(60))
            // Keys not given keep their values.
            #expect(
                after.settings.passcodeRequirement?.policy?.retryLimit
                    == before.settings.passcodeRequirement?.policy?.retryLimit
            )
            #expect(after.minimumVersion == "2.1")
            #expect(after.settings.allowsUploadOfPreviousUserChanges == false)
            #expect(try await admin.app("checks") == after)
            // A device reads the same at its settings exchange.
            let client = MobileServicesClient(serverURL: server.url)
            let session = try await client.signIn(
                appID: "checks",
                username: "alice",
                password: SeedUser.alice.password,
                deviceID: "stand-1"
            )
            let settings = try await client.settings(appID: "checks", token: session.token)
            #expect(settings.passcodeRequirement == after.settings.passcodeRequirement)
            // An empty string allows every version again.
            #expect(try await admin.updateApp("checks", AppChange(minimumVersion: "")).minimumVersion == nil)

            var bad = PasscodePolicyChange()
            bad[.minimumLength] = .number(0)
            let refused = await #expect(throws: ServiceError.refused) {
                try await admin.updateApp("checks", AppChange(passcodePolicy: bad))
            }
            #expect(refused?.status == 400)
            #expect(try await admin.app("checks").settings.passcodeRequirement?.policy?.minimumLength == 12)
            await #expect(throws: ServiceError.notFound) { try await admin.app("nope") }
        }
    }

    @Test func blocksUsersAndLocksOrWipesTheirDevices() async throws {
        try await TestServer.run(seed: .checks) { server in
            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            let device = try ServicesDevice(server: server)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            let devices = try await admin.devices(app: "checks")
            let alice = try #require(devices.first { $0.username == "alice" })
            #expect(alice.status == .active)
            #expect(alice.appVersion == device.services.device.appVersion)
            let locked = try await admin.setDeviceStatus(.locked, app: "checks", registration: alice.registrationID)
            #expect(locked.status == .locked)
            let wiped = try await admin.setDeviceStatus(.wiped, app: "checks", registration: alice.registrationID)
            #expect(wiped.status == .wiped)
            #expect(
                try await admin.devices(app: "checks").first { $0.registrationID == alice.registrationID }?.status
                    == .wiped
            )
            await #expect(throws: ServiceError.notFound) {
                try await admin.setDeviceStatus(.locked, app: "checks", registration: "no-such-registration")
            }

            #expect(try await admin.users().map(\.username).sorted() == ["alice", "bob"])
            #expect(try await admin.setBlocked(true, user: "bob").isBlocked)
            let client = MobileServicesClient(serverURL: server.url)
            // A blocked user's right password gets the wrong password's answer.
            await #expect(throws: ServiceError.invalidCredentials) {
                _ = try await client.signIn(
                    appID: "checks",
                    username: "bob",
                    password: SeedUser.bob.password,
                    deviceID: "stand-2"
                )
            }
            #expect(try await admin.setBlocked(false, user: "bob").isBlocked == false)
            try await admin.setPassword("bob-new-password", user: "bob")
            let session = try await client.signIn(
                appID: "checks",
                username: "bob",
                password: "bob-new-password",
                deviceID: "stand-2"
            )
            #expect(session.user.id == "bob")
            await #expect(throws: ServiceError.notFound) { try await admin.setBlocked(true, user: "nobody") }
        }
    }

    @Test func makesAnActivationLinkTheDeviceVerifies() async throws {
        try await TestServer.run(seed: .checks) { server in
            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            let link = try await admin.activationLink(app: "checks")
            let key = try SignedActivationProvider.pinnedKey(pem: server.pinnedActivationKeyPEM)
            let configuration = try ActivationLink(link).verified(with: key)
            #expect(configuration.appID == "checks")
            #expect(configuration.serverURL == server.url)
            await #expect(throws: ServiceError.notFound) { try await admin.activationLink(app: "nope") }
            // The server draws the QR code itself: a PNG, always.
            let png = try await admin.activationQRCode(app: "checks")
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        }
    }

    @Test("the token goes only to a server that proves it holds its hash; an impostor gets a challenge")
    func impostorGetsNoToken() async throws {
        try await ImpostorServer.run { impostor in
            let admin = AdminClient(serverURL: impostor.url, adminToken: "gw_admin_the-real-token")
            await #expect(throws: ServiceError.serverNotProven) { _ = try await admin.apps() }
            await #expect(throws: ServiceError.serverNotProven) { _ = try await admin.users() }
            #expect(impostor.authorizations.isEmpty)
            #expect(impostor.requestedPaths == ["/admin/proof", "/admin/proof"])
        }
        // The real server proves itself once, then the calls carry the token.
        try await TestServer.run(seed: .checks) { server in
            try await Self.listsAppsAndUsers(AdminClient(serverURL: server.url, adminToken: server.adminToken))
        }
    }

    private static func listsAppsAndUsers(_ admin: AdminClient) async throws {
        let apps = try await admin.apps()
        let users = try await admin.users()
        #expect(apps.map(\.id) == ["checks"])
        #expect(users.count == 2)
    }
}
