import Foundation
import GangwayFlows
import GangwayScreens
import GangwayTesting
import Testing

@Suite("Stories: the platform permissions are asked once, in the onboarding, and can be skipped")
struct PermissionsStoryTests {
    static func step(_ platform: ScriptedPermissions) -> PermissionsStep {
        PermissionsStep(
            [.init(.camera, reason: "Photograph damage."), .init(.location), .init(.notifications), .init(.camera)],
            platform: platform
        )
    }

    @Test("only what the platform has not decided is asked, after the passcode; Not Now skips the platform's question")
    func onboardingAsksTheUndecidedOnes() async throws {
        let device = try Device(shared: true)
        let platform = ScriptedPermissions(statuses: [.notifications: .denied], answers: [.camera: .granted])
        let app = try device.launch(
            [.signIn("alice"), .create(Device.alicePasscode), .permission(.allow), .permission(.notNow)],
            extra: [Self.step(platform)]
        )
        try await app.manager.open()
        try app.presenter.verifyFinished()
        #expect(app.presenter.presentedKinds.suffix(3) == [.passcodeCreate, .permission, .permission])
        let pages = app.presenter.presented(PermissionScreen.self)
        #expect(pages.map(\.permission) == [.camera, .location], "camera named twice, asked once")
        #expect(pages.map(\.position) == [1, 2] && pages.allSatisfy { $0.count == 2 })
        #expect(pages.first?.body == "Photograph damage.")
        #expect(platform.asked == [.camera], "Not Now never reaches the platform")
        let statuses = await app.manager.flowContext?.info[.permissions]
        #expect(statuses == [.camera: .granted, .location: .notDetermined, .notifications: .denied])
    }

    @Test("a refusal at the platform is an answer: the onboarding goes on and the data is there")
    func aRefusalIsNotAFailure() async throws {
        let device = try Device()
        let platform = ScriptedPermissions(answers: [.camera: .denied, .location: .denied, .notifications: .denied])
        let app = try device.launch(
            [.signIn("alice"), .create(Device.alicePasscode)] + Array(repeating: .permission(.allow), count: 3),
            extra: [Self.step(platform)]
        )
        let session = try await app.manager.open()
        try app.presenter.verifyFinished()
        #expect(platform.asked == [.camera, .location, .notifications])
        #expect(await app.manager.flowContext?.info[.permissions]?.values.allSatisfy { $0 == .denied } == true)
        try await app.manager.close()
        #expect(device.storeExists(session.onboardingID))
    }

    @Test("a launch asks nothing; the next person on a shared device is asked only what is still undecided")
    func laterLaunchesAndUsers() async throws {
        let device = try Device(shared: true)
        let platform = ScriptedPermissions(answers: [.location: .denied])
        let first = try device.launch(
            [
                .signIn("alice"), .create(Device.alicePasscode), .permission(.allow), .permission(.notNow),
                .permission(.allow),
            ],
            extra: [Self.step(platform)]
        )
        try await first.manager.open()
        try await first.manager.close()
        #expect(platform.asked == [.camera, .notifications])

        let again = try device.launch(
            [.userPicker(.selectNamed("Alice")), .unlock(Device.alicePasscode)],
            extra: [Self.step(platform)]
        )
        try await again.manager.open()
        try again.presenter.verifyFinished()
        #expect(!again.presenter.presentedKinds.contains(.permission), "asked once, in the onboarding")

        again.presenter.append(.signIn("bob"), .create(Device.bobPasscode), .permission(.allow))
        try await again.manager.addUser()
        try again.presenter.verifyFinished()
        #expect(again.presenter.presented(PermissionScreen.self).map(\.permission) == [.location])
        #expect(platform.asked == [.camera, .notifications, .location])
        #expect(await platform.status(of: .location) == .denied)
    }
}
