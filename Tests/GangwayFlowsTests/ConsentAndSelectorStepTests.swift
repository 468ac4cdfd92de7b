import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayStore
import GangwayTesting
import Testing

@Suite("EULA, consent and store-selector steps")
struct ConsentAndSelectorStepTests {
    static let pages = [ConsentScreen.Page(title: "Usage", body: "Share anonymous usage data?")]

    static func consentSteps(eula: String = "1", usage: Int = 1, analytics: Int = 1) -> [any Step] {
        [
            EULAStep(version: eula, text: "Terms"),
            ConsentStep(topic: "usage", version: usage, isRequired: true, pages: pages),
            ConsentStep(topic: "analytics", version: analytics, isRequired: false, pages: pages),
        ]
    }

    @Test func answersAreKeptInTheUsersStoreAndAskedAgainOnlyForANewVersion() async throws {
        let device = try Device()
        let first = try device.launch(
            [.signIn("alice"), .create(Device.alicePasscode), .eula(.accept), .consent(.accept), .consent(.decline)],
            extra: Self.consentSteps()
        )
        try await first.manager.open()
        try first.presenter.verifyFinished()
        let store = try #require(await first.manager.store)
        #expect(try EULAStep.acceptedVersion(in: store) == "1")
        #expect(try ConsentRecord.load(topic: "usage", from: store) == ConsentRecord(version: 1, accepted: true))
        #expect(try ConsentRecord.load(topic: "analytics", from: store) == ConsentRecord(version: 1, accepted: false))
        try await first.manager.close()

        // Same versions: nothing is asked, not even the declined optional consent.
        let same = try device.launch([.unlock(Device.alicePasscode)], extra: Self.consentSteps())
        try await same.manager.open()
        try same.presenter.verifyFinished()
        try await same.manager.close()

        // A new agreement and a new analytics consent: both asked again.
        let newer = try device.launch(
            [.unlock(Device.alicePasscode), .eula(.accept), .consent(.next, .accept)],
            extra: Self.consentSteps(eula: "2", analytics: 2)
        )
        try await newer.manager.open()
        try newer.presenter.verifyFinished()
        #expect(try EULAStep.acceptedVersion(in: #require(await newer.manager.store)) == "2")
    }

    @Test func decliningWhatIsRequiredStopsAndRollsBackTheOnboarding() async throws {
        let device = try Device()
        let eula = try device.launch(
            [.signIn("alice"), .create(Device.alicePasscode), .eula(.decline)],
            extra: Self.consentSteps()
        )
        let error = await #expect(throws: FlowError.stopped) { try await eula.manager.open() }
        #expect((error?.underlying as? ConsentError) == .eulaDeclined)
        #expect(try device.root.storeIDs().isEmpty)

        let consent = try device.launch(
            [.signIn("alice"), .create(Device.alicePasscode), .eula(.accept), .consent(.decline)],
            extra: Self.consentSteps()
        )
        let declined = await #expect(throws: FlowError.stopped) { try await consent.manager.open() }
        #expect((declined?.underlying as? ConsentError)?.topic == "usage")
        #expect(try device.root.storeIDs().isEmpty)
        #expect(try device.registry.users().isEmpty)
    }

    @Test func aStoreSelectorRunsStepsAgainstADeviceWideStore() async throws {
        let device = try Device(shared: true)
        let deviceStore = SecureStoreLocation(
            directory: device.temporary.appending("device-store"),
            environment: device.environment
        )
        let counter = ClosureStep(
            "launch counter",
            onboard: { context in
                let count = Int(
                    try context.credentials.data(forKey: "launches").map { String(decoding: $0, as: UTF8.self) } ?? "0"
                )!
                try context.credentials.put(Data("\(count + 1)".utf8), forKey: "launches")
                return context
            }
        )
        let selector = StoreSelectorStep(.deviceStore(at: deviceStore), steps: [counter])
        let app = try device.launch(
            [.signIn("alice"), .create(Device.alicePasscode), .signIn("bob"), .create(Device.bobPasscode)],
            extra: [selector]
        )
        try await app.manager.open()
        try await app.manager.addUser()
        try app.presenter.verifyFinished()

        // Both onboardings counted in the shared store; neither user's store got the count.
        let shared = try deviceStore.unlockWithoutPasscode()
        #expect(try shared.string(forKey: "launches") == "2")
        shared.close()
        let bobStore = try #require(await app.manager.store)
        #expect(try bobStore.string(forKey: "launches") == nil)
        #expect(try bobStore.string(forKey: TestServer.tokenKey) == "token-of-bob")
    }
}

@Suite("Store selector reset and the background flow")
struct SelectorResetAndBackgroundTests {
    static func counter(_ recorder: Recorder) -> ClosureStep {
        ClosureStep(
            "device setting",
            onboard: { context in
                try context.credentials.put(Data("on".utf8), forKey: "device.setting")
                return context
            },
            reset: { context in
                recorder.record("reset")
                _ = try? context.credentials.removeValue(forKey: "device.setting")
            }
        )
    }

    @Test(arguments: [false, true])
    func removingAUserResetsTheSelectedStoreOnlyWhenAskedTo(_ resets: Bool) async throws {
        let device = try Device()
        let location = SecureStoreLocation(
            directory: device.temporary.appending("device-store"),
            environment: device.environment
        )
        let recorder = Recorder()
        let selector = StoreSelectorStep(
            .deviceStore(at: location),
            steps: [Self.counter(recorder)],
            resetsSelectedStore: resets
        )
        let app = try device.launch([.signIn("alice"), .create(Device.alicePasscode)], extra: [selector])
        try await app.manager.open()
        try await app.manager.remove()

        let store = try location.unlockWithoutPasscode()
        #expect(try store.string(forKey: "device.setting") == (resets ? nil : "on"))
        store.close()
        #expect(recorder.all == (resets ? ["reset"] : []))
    }

    @Test func theBackgroundFlowRunsOnceTheScreensAreHidden() async throws {
        let device = try Device()
        let recorder = Recorder()
        let app = try device.launch(
            [.signIn("alice"), .create(Device.alicePasscode)],
            extra: [BackgroundRecorder(recorder: recorder)]
        )
        try await app.manager.open()
        await app.manager.enterBackground()
        // Already locked: nothing runs twice.
        await app.manager.enterBackground()
        #expect(recorder.all == ["background with screens hidden: true"])
        #expect(app.ui.events.filter { $0 == .hide }.count == 1)
    }

    /// Records the background flow and whether the app had hidden its screens by then.
    struct BackgroundRecorder: Step {
        let recorder: Recorder

        func onboard(_ context: FlowContext) async throws -> FlowContext { context }

        func background(_ context: FlowContext) async throws -> FlowContext {
            let presenter = context.presenter as? ScriptedPresenter
            recorder.record("background with screens hidden: \((presenter?.hideCount ?? 0) > 0)")
            return context
        }
    }
}
