import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayProtocol
import GangwayScreens
import GangwayServerTesting
import GangwayServices
import GangwayStore
import GangwayTesting
import HTTPTypes
import Testing

@Suite("Stories: an oauth2 app signs people in with the device grant, renews sessions silently and asks again")
struct OAuthSignInAgainstServerTests {
    static let tokenKey = "gangway.services.token"
    static let refreshKey = "gangway.services.refreshToken"

    static func oauth2(_ server: RunningTestServer) async throws {
        try await server.admin(.put, "/admin/apps/checks/authentication", json: #"{"type": "oauth2"}"#)
    }

    /// Alice onboarded through the device grant, her session open.
    static func aliceOnboarded(_ device: ServicesDevice) async throws -> ServicesApp {
        let app = try device.launch(.byEmail, .deviceCode(device.server), .create(ServicesDevice.alicePasscode))
        try await app.manager.open()
        try app.presenter.verifyFinished()
        return app
    }

    /// Revokes one access token (RFC 7009), as an expiry would end it.
    static func revoke(_ token: String, at server: RunningTestServer) async throws -> ServerReply {
        try await server.sendForm("/apps/checks/oauth/revoke", [("client_id", "checks"), ("token", token)])
    }

    static func text(_ store: SecureStore?, _ key: String) throws -> String? {
        try store?.data(forKey: key).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("first launch: the code on the screen, approved elsewhere; tokens in her store; the relaunch asks nothing")
    func firstLaunchAndRelaunch() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await Self.oauth2(server)
            let device = try ServicesDevice(server: server)
            let app = try await Self.aliceOnboarded(device)
            #expect(app.presenter.presentedKinds == [.welcome, .deviceCode, .passcodeCreate])
            let screen = try #require(app.presenter.presented(DeviceCodeScreen.self).first)
            #expect(screen.userCode.wholeMatch(of: /[B-Z]{4}-[B-Z]{4}/) != nil)
            #expect(screen.verificationURL.absoluteString == "\(server.url.absoluteString)/apps/checks/oauth/device")
            #expect(screen.verificationURLComplete?.absoluteString.hasSuffix("?user_code=\(screen.userCode)") == true)
            let store = await app.manager.store
            #expect(try Self.text(store, Self.tokenKey)?.hasPrefix("gw_") == true)
            #expect(try Self.text(store, Self.refreshKey)?.hasPrefix("gw_") == true)
            #expect(try ServiceAccount(reading: try #require(store)).user?.id == "alice")
            // Her device registered, under her, with the device grant's session.
            let devices = try await server.admin(.get, "/admin/apps/checks/devices")
            #expect(devices.text.contains("\"stand-12\"") && devices.text.contains("\"alice\""))
            try await app.manager.close()

            let again = try device.launch(.unlock(ServicesDevice.alicePasscode))
            try await again.manager.open()
            try again.presenter.verifyFinished()
            #expect(!device.logsHoldASecret)
        }
    }

    @Test("an ended session is renewed with the refresh token, which rotates; nothing is asked")
    func silentRefresh() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await Self.oauth2(server)
            let device = try ServicesDevice(server: server)
            let app = try await Self.aliceOnboarded(device)
            let store = await app.manager.store
            let access = try #require(try Self.text(store, Self.tokenKey))
            let refresh = try #require(try Self.text(store, Self.refreshKey))
            try await app.manager.close()
            // The access token alone is revoked (RFC 7009), as an expiry would end it.
            let revoked = try await Self.revoke(access, at: server)
            #expect(revoked.status == .ok)

            let again = try device.launch(.unlock(ServicesDevice.alicePasscode))
            try await again.manager.open()
            try again.presenter.verifyFinished()
            let renewed = await again.manager.store
            let newAccess = try #require(try Self.text(renewed, Self.tokenKey))
            let newRefresh = try #require(try Self.text(renewed, Self.refreshKey))
            #expect(newAccess != access && newRefresh != refresh)
            let settings = try await server.send(.get, "/apps/checks/settings", token: newAccess)
            #expect(settings.status == .ok)

            // Mid-session too: the app's data is read after a silent renewal.
            let revokedAgain = try await Self.revoke(newAccess, at: server)
            #expect(revokedAgain.status == .ok)
            let context = try #require(await again.manager.flowContext)
            let reading = try await AppDataReader(services: device.services).read("checks", in: context)
            #expect(reading.failure == nil && reading.isFresh)
            try again.presenter.verifyFinished()
            #expect(!device.logsHoldASecret)
        }
    }

    @Test(
        "five reads meeting one ended session at once share one renewal: the refresh token is spent once, its family lives"
    )
    func oneRenewalForManyCalls() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await Self.oauth2(server)
            let device = try ServicesDevice(server: server)
            let app = try await Self.aliceOnboarded(device)
            let store = await app.manager.store
            let access = try #require(try Self.text(store, Self.tokenKey))
            #expect(try await Self.revoke(access, at: server).status == .ok)
            let context = try #require(await app.manager.flowContext)
            let reader = AppDataReader(services: device.services)
            let readings = try await withThrowingTaskGroup(of: AppDataReading.self) { group in
                for _ in 0..<5 { group.addTask { try await reader.read("checks", in: context) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(readings.count == 5 && readings.allSatisfy { $0.failure == nil })
            // Spending the refresh token twice would have revoked the family, and with it
            // the session in the store.
            let renewed = try #require(try Self.text(store, Self.tokenKey))
            #expect(renewed != access)
            #expect(try await server.send(.get, "/apps/checks/settings", token: renewed).status == .ok)
            try app.presenter.verifyFinished()
        }
    }

    @Test("a refused refresh asks the same person again with a new code; another person's approval is refused")
    func refusedRefreshAsksAgain() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await Self.oauth2(server)
            let device = try ServicesDevice(server: server)
            let app = try await Self.aliceOnboarded(device)
            let oldRefresh = try #require(try Self.text(await app.manager.store, Self.refreshKey))
            try await app.manager.close()
            try await server.admin(.delete, "/admin/users/alice/sessions")

            let again = try device.launch(
                .unlock(ServicesDevice.alicePasscode),
                .deviceCode(server, "bob"),
                .deviceCode(server, "alice")
            )
            try await again.manager.open()
            try again.presenter.verifyFinished()
            let screens = again.presenter.presented(DeviceCodeScreen.self)
            #expect(screens.count == 2)
            #expect(screens[0].message?.contains("Sign in again") == true)
            #expect(screens[1].message == "Sign in as Alice.")
            #expect(screens[0].userCode != screens[1].userCode)
            let store = await again.manager.store
            #expect(try ServiceAccount(reading: try #require(store)).user?.id == "alice")
            #expect(try Self.text(store, Self.refreshKey) != oldRefresh)
        }
    }

    @Test("a denied code shows why and offers a new one; cancelling ends the onboarding")
    func deniedThenApproved() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await Self.oauth2(server)
            let device = try ServicesDevice(server: server)
            let app = try device.launch(
                .byEmail,
                .deviceCode(server, approve: false),
                .error(.retry),
                .deviceCode(server),
                .create(ServicesDevice.alicePasscode)
            )
            try await app.manager.open()
            try app.presenter.verifyFinished()
            let error = try #require(app.presenter.presented(ErrorScreen.self).first)
            #expect(error.message == "The sign-in was denied at the verification page.")

            let other = try ServicesDevice(server: server)
            let cancelled = try other.launch(.byEmail, .deviceCode(.cancel))
            await #expect(throws: FlowError.stopped) { try await cancelled.manager.open() }
            try cancelled.presenter.verifyFinished()
        }
    }

    @Test("an app moved to oauth2 after the device onboarded: the next sign-in uses the device grant, and is kept")
    func movedToOAuth() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            try await app.manager.close()
            #expect(try device.configurationStore.load()?.authType == .basic)
            try await Self.oauth2(server)
            try await server.admin(.delete, "/admin/users/alice/sessions")

            // The kept configuration says basic; the server refuses the password route, so
            // the device asks for a code instead, with no password screen.
            let again = try device.launch(.unlock(ServicesDevice.alicePasscode), .deviceCode(server))
            try await again.manager.open()
            try again.presenter.verifyFinished()
            #expect(again.presenter.presentedKinds == [.passcodeInput, .deviceCode])
            #expect(try device.configurationStore.load()?.authType == .oauth2)
            try await again.manager.close()

            // And back: the app returns to passwords; the device follows.
            try await server.admin(.put, "/admin/apps/checks/authentication", json: #"{"type": "basic"}"#)
            try await server.admin(.delete, "/admin/users/alice/sessions")
            let third = try device.launch(.unlock(ServicesDevice.alicePasscode), .signIn("alice"))
            try await third.manager.open()
            try third.presenter.verifyFinished()
            #expect(try device.configurationStore.load()?.authType == .basic)
        }
    }

    @Test("logout revokes the refresh token: it renews nothing afterwards")
    func logoutRevokes() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await Self.oauth2(server)
            let device = try ServicesDevice(server: server)
            let app = try await Self.aliceOnboarded(device)
            let refresh = try #require(try Self.text(await app.manager.store, Self.refreshKey))
            try await app.manager.logout()
            let client = MobileServicesClient(serverURL: server.url)
            await #expect(throws: ServiceError.invalidGrant) {
                _ = try await client.refreshTokens(appID: "checks", refreshToken: RefreshToken(refresh))
            }
        }
    }

    @Test("a password sign-in screen never shows for an oauth2 app, and the client's OAuth errors are typed")
    func typedErrors() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await Self.oauth2(server)
            let client = MobileServicesClient(serverURL: server.url)
            let started = try await client.startDeviceAuthorization(appID: "checks", deviceID: "stand-12")
            #expect(!started.description.contains(started.deviceCode))
            await #expect(throws: ServiceError.authorizationPending) {
                _ = try await client.redeemDeviceCode(appID: "checks", deviceCode: started.deviceCode)
            }
            await #expect(throws: ServiceError.slowDown) {
                _ = try await client.redeemDeviceCode(appID: "checks", deviceCode: started.deviceCode)
            }
            await #expect(throws: ServiceError.invalidGrant) {
                _ = try await client.redeemDeviceCode(appID: "checks", deviceCode: "gw_not-a-code")
            }
            await #expect(throws: ServiceError.sessionExpired) {
                _ = try await client.userInfo(appID: "checks", token: SessionToken("gw_unknown"))
            }
            await #expect(throws: ServiceError.refused) {
                _ = try await client.startDeviceAuthorization(appID: "checks", deviceID: "bad id with spaces")
            }
        }
    }

    @Test("a device code's end is counted from the app's wall clock, not the machine's")
    func deviceCodeLifetimeFromTheInjectedClock() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await Self.oauth2(server)
            let appNow = Date(timeIntervalSince1970: 2_000_000_000)
            let client = MobileServicesClient(serverURL: server.url, now: { appNow })
            let started = try await client.startDeviceAuthorization(appID: "checks", deviceID: "stand-12")
            let lifetime = started.expiresAt.timeIntervalSince(appNow)
            #expect(lifetime > 0 && lifetime <= 15 * 60, "the server's expires_in, after the app's now")
            let machine = MobileServicesClient(serverURL: server.url)
            let other = try await machine.startDeviceAuthorization(appID: "checks", deviceID: "stand-12")
            #expect(other.expiresAt.timeIntervalSince(appNow) < -100_000_000, "the default reads the machine's clock")
        }
    }
}
