import Foundation
import GangwayFlows
import GangwayScreens
import GangwayServerTesting
import GangwayServices
import GangwayStore
import GangwayTesting
import Testing

@Suite("Stories: users share a device that onboards against the server")
struct SharedDeviceAgainstServerTests {
    @Test func aSecondUserOnboardsWithoutActivatingAgain() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server, shared: true)
            let first = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            let alice = try await first.manager.open()
            let credentials = try #require(await first.manager.flowContext?.credentials)
            #expect(try ServiceAccount(reading: credentials).settings?.allowsUploadOfPreviousUserChanges == true)
            // The requirement is carried once in the context and kept once, by the store.
            #expect(await first.manager.flowContext?.info[.passcodeRequirement] != nil)
            #expect(try ServiceAccount(reading: credentials).settings?.passcodeRequirement == nil)

            // Bob adds himself: the device knows its server, so the welcome screen asks him to sign in.
            let bob = try await {
                first.presenter.append(.welcome(.signIn), .signIn("bob"), .create(ServicesDevice.bobPasscode))
                return try await first.manager.addUser()
            }()
            try first.presenter.verifyFinished()
            let welcome = try #require(first.presenter.presented(WelcomeScreen.self).last)
            #expect(welcome.configuration == .configured)
            #expect(bob.onboardingID != alice.onboardingID)
            #expect(try first.registry.users().count == 2)
            try await first.manager.close()

            // Alice cannot onboard a second time: she is offered her own user instead.
            let again = try device.launch(
                .userPicker(.addUser),
                .welcome(.signIn),
                .signIn("alice"),
                .existingUser(.unlockExisting),
                .unlock(ServicesDevice.alicePasscode)
            )
            #expect(try await again.manager.open().onboardingID == alice.onboardingID)
            try again.presenter.verifyFinished()
            #expect(try again.registry.users().count == 2)
            #expect(!device.logsHoldASecret)
        }
    }
}
