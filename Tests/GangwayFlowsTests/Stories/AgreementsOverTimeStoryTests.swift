import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayStore
import GangwayTesting
import Testing

@Suite("Stories: the server's agreement versions are asked again at launch and unlock")
struct AgreementsOverTimeStoryTests {
    static let pages = [ConsentScreen.Page(title: "Usage", body: "Share anonymous usage data?")]

    static var steps: [any Step] {
        [
            EULAStep(version: "1", text: "Terms"),
            ConsentStep(topic: "usage", version: 1, isRequired: false, pages: pages, followsServer: true),
        ]
    }

    /// Alice onboarded, accepted the app's agreement and answered the consent, with a
    /// check in her store; the app closed.
    static func onboarded() async throws -> (Device, UUID) {
        let device = try Device()
        let app = try device.launch(
            [.signIn("alice"), .create(Device.alicePasscode), .eula(.accept), .consent(.accept)],
            extra: steps
        )
        let session = try await app.manager.open()
        try await app.manager.store?.put("tyres 2.4 bar", forKey: "check.tyres")
        try await app.manager.close()
        return (device, session.onboardingID)
    }

    @Test func aNewServerVersionIsAskedAtLaunchAndDecliningKeepsTheData() async throws {
        let (device, id) = try await Self.onboarded()
        device.server.agreements = AgreementVersions(eula: "2027.01")

        let declined = try device.launch([.unlock(Device.alicePasscode), .eula(.decline)], extra: Self.steps)
        let error = await #expect(throws: FlowError.stopped) { try await declined.manager.open() }
        #expect((error?.underlying as? ConsentError) == .eulaDeclined)
        try declined.presenter.verifyFinished()
        #expect(declined.presenter.presented(EULAScreen.self).first?.version == "2027.01")
        #expect(await declined.manager.session == nil)
        #expect(device.storeExists(id), "the data stays")

        let accepted = try device.launch([.unlock(Device.alicePasscode), .eula(.accept)], extra: Self.steps)
        #expect(try await accepted.manager.open().onboardingID == id)
        try accepted.presenter.verifyFinished()
        #expect(try await accepted.manager.store?.string(forKey: "check.tyres") == "tyres 2.4 bar")
        try await accepted.manager.close()

        // Without the server, the version it asked for last still counts: nothing is asked.
        device.server.isOnline = false
        let offline = try device.launch([.unlock(Device.alicePasscode)], extra: Self.steps)
        try await offline.manager.open()
        try offline.presenter.verifyFinished()
    }

    /// The agreement steps as an app may group them: alone, in a composite, or run against
    /// a store a selector picks (here the user's own).
    enum Grouping: String, CaseIterable, Sendable {
        case alone, composite, storeSelector

        var steps: [any Step] {
            switch self {
            case .alone: AgreementsOverTimeStoryTests.steps
            case .composite: [CompositeStep(AgreementsOverTimeStoryTests.steps)]
            case .storeSelector:
                [StoreSelectorStep(.init(open: { $0.credentials }), steps: AgreementsOverTimeStoryTests.steps)]
            }
        }
    }

    @Test(
        "a new version learnt in the background is asked at the unlock, however the app groups its agreement steps",
        arguments: Grouping.allCases
    )
    func groupedAgreementStepsAreAskedAtUnlock(grouping: Grouping) async throws {
        let (device, id) = try await Self.onboarded()
        let app = try device.launch([.unlock(Device.alicePasscode)], extra: grouping.steps)
        try await app.manager.open()
        device.server.agreements = AgreementVersions(eula: "2027.01")
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(600))
        app.presenter.append(.unlock(Device.alicePasscode), .eula(.accept))
        try await app.manager.enterForeground()
        try app.presenter.verifyFinished()
        #expect(app.presenter.presented(EULAScreen.self).last?.version == "2027.01", "asked at the unlock")
        #expect(await app.manager.session?.onboardingID == id)
    }

    @Test("a new version learnt in the background is asked at a quick return too, before the data, and once")
    func aNewVersionIsAskedAtAQuickReturn() async throws {
        let (device, id) = try await Self.onboarded()
        let app = try device.launch([.unlock(Device.alicePasscode)], extra: Self.steps)
        try await app.manager.open()
        device.server.agreements = AgreementVersions(eula: "2027.01")
        await app.manager.enterBackground()
        // Back within the lock timeout: no passcode, but the agreement before the screens.
        device.clock.advance(by: .seconds(5))
        app.presenter.append(.eula(.decline))
        await #expect(throws: ConsentError.eulaDeclined) { try await app.manager.enterForeground() }
        try app.presenter.verifyFinished()
        #expect(await app.manager.state == .closed)
        #expect(app.ui.events.last == .hide, "the app's screens never showed")
        #expect(device.storeExists(id))

        app.presenter.append(.unlock(Device.alicePasscode), .eula(.accept))
        try await app.manager.open()
        try app.presenter.verifyFinished()
        // Nothing new: a quick return asks nothing.
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(5))
        #expect(try await app.manager.enterForeground() == .resume)
        try app.presenter.verifyFinished()
    }

    @Test("on a device without a passcode a new version is asked at the next return, not at the next launch")
    func aNewVersionIsAskedWithoutAPasscode() async throws {
        let device = try Device(server: TestServer(requirement: .notRequired))
        let app = try device.launch([.signIn("alice"), .eula(.accept), .consent(.accept)], extra: Self.steps)
        try await app.manager.open()
        try app.presenter.verifyFinished()
        device.server.agreements = AgreementVersions(eula: "2027.01")
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(3_600))
        app.presenter.append(.eula(.accept))
        #expect(try await app.manager.enterForeground() == .resume)
        try app.presenter.verifyFinished()
        #expect(app.presenter.presented(EULAScreen.self).last?.version == "2027.01")
    }

    @Test func aNewVersionLearntInTheBackgroundIsAskedAtTheUnlockBeforeTheData() async throws {
        let (device, id) = try await Self.onboarded()
        let app = try device.launch([.unlock(Device.alicePasscode)], extra: Self.steps)
        try await app.manager.open()
        let recorder = Recorder()
        await app.manager.addObserver { recorder.record("\($0)") }

        device.server.agreements = AgreementVersions(eula: "2027.01")
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(600))
        app.presenter.append(.unlock(Device.alicePasscode), .eula(.decline))
        await #expect(throws: ConsentError.eulaDeclined) { try await app.manager.enterForeground() }
        try app.presenter.verifyFinished()
        #expect(await app.manager.state == .closed)
        #expect(app.ui.events.last == .hide, "the app's screens never showed")
        #expect(recorder.all.count == 1 && recorder.all[0].hasPrefix("sessionEnded(\(id)"))
        #expect(device.storeExists(id))

        // The next open asks again; accepting it opens the data.
        app.presenter.append(.unlock(Device.alicePasscode), .eula(.accept))
        #expect(try await app.manager.open().onboardingID == id)
        try app.presenter.verifyFinished()
        #expect(try await app.manager.store?.string(forKey: "check.tyres") == "tyres 2.4 bar")

        // Accepted: the next unlock asks for the passcode only.
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(600))
        app.presenter.append(.unlock(Device.alicePasscode))
        #expect(try await app.manager.enterForeground() == .unlock)
        try app.presenter.verifyFinished()
    }

    @Test func aConsentThatFollowsTheServerIsAskedForEachServerVersionOnce() async throws {
        let (device, _) = try await Self.onboarded()
        device.server.agreements = AgreementVersions(consent: "2")
        let asked = try device.launch([.unlock(Device.alicePasscode), .consent(.decline)], extra: Self.steps)
        try await asked.manager.open()
        try asked.presenter.verifyFinished()
        let record = try ConsentRecord.load(topic: "usage", from: #require(await asked.manager.store))
        #expect(record == ConsentRecord(version: 1, accepted: false, serverVersion: "2"))
        try await asked.manager.close()

        // Declined, optional, same server version: not asked again.
        let again = try device.launch([.unlock(Device.alicePasscode)], extra: Self.steps)
        try await again.manager.open()
        try again.presenter.verifyFinished()
    }
}
