import GangwayPolicy
import GangwayScreens
import GangwayTesting
import Testing

@Suite("Scripted presenter")
struct ScriptedPresenterTests {
    @Test func answersScreensInOrderAndRecordsThem() async throws {
        let presenter = ScriptedPresenter([
            .welcome(.acceptTerms(true), .signIn),
            .passcodeCreate(.enter("271828"), .enter("271828")),
        ])
        let links = [WelcomeScreen.Link(title: "Terms", url: "https://example.com")]
        let welcome = try await presenter.present(WelcomeScreen(configuration: .configured, termsLinks: links))
        #expect(welcome == .signIn)
        let created = try await presenter.present(
            PasscodeCreateScreen(policy: PasscodePolicy(minimumLength: 6), biometricsAvailable: false)
        )
        #expect(created == .created(passcode: "271828", biometrics: false))
        try presenter.verifyFinished()
        #expect(presenter.presentedKinds == [.welcome, .passcodeCreate])
        #expect(presenter.finished(WelcomeScreen.self).first?.termsAccepted == true)
    }

    @Test func anUnexpectedScreenFails() async throws {
        let presenter = ScriptedPresenter([.signIn(.signIn(username: "a", password: "b"))])
        await #expect(throws: PresenterError.unexpectedScreen) {
            try await presenter.present(PasscodeInputScreen())
        }
        #expect(throws: PresenterError.unexpectedScreen) { try presenter.verifyFinished() }
    }

    @Test func aScreenAfterTheScriptEndsFails() async throws {
        let presenter = ScriptedPresenter()
        await #expect(throws: PresenterError.unexpectedScreen) {
            try await presenter.present(ErrorScreen(message: "x"))
        }
    }

    @Test func inputsOfAnotherScreenFail() async throws {
        let presenter = ScriptedPresenter([ScriptedPresenter.Answer(.eula, inputs: [SignInScreen.Input.cancel])])
        await #expect(throws: PresenterError.unexpectedInput) {
            try await presenter.present(EULAScreen(version: "1", text: ""))
        }
    }

    @Test func aScreenThatDoesNotFinishOrFinishesEarlyFails() async throws {
        let presenter = ScriptedPresenter([
            .passcodeInput(.enter("")),
            .eula(.accept, .decline),
        ])
        await #expect(throws: PresenterError.unfinished) { try await presenter.present(PasscodeInputScreen()) }
        await #expect(throws: PresenterError.unexpectedInput) {
            try await presenter.present(EULAScreen(version: "1", text: ""))
        }
        #expect(presenter.failures.count == 2)
    }

    @Test func leftoverAnswersFailTheVerification() async throws {
        let presenter = ScriptedPresenter([.eula(.accept), .error(.retry)])
        _ = try await presenter.present(EULAScreen(version: "1", text: ""))
        #expect(throws: PresenterError.unfinished) { try presenter.verifyFinished() }
        #expect(try await presenter.present(ErrorScreen(message: "x")) == .retry)
        presenter.append(.feedback(.continue))
        #expect(throws: PresenterError.unfinished) { try presenter.verifyFinished() }
        _ = try await presenter.present(FeedbackScreen(announcing: .passcodeToNone))
        try presenter.verifyFinished()
        await presenter.hideAll()
        #expect(presenter.hideCount == 1)
    }

    @Test func failureMessagesNameScreensNotInputs() async throws {
        let presenter = ScriptedPresenter([.passcodeInput(.enter("582016"), .reset)])
        await #expect(throws: PresenterError.unexpectedInput) { try await presenter.present(PasscodeInputScreen()) }
        let message = try #require(presenter.failures.first).description
        #expect(message.contains("passcodeInput"))
        #expect(!message.contains("582016"))
    }
}
