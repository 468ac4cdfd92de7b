import Foundation
import GangwayPolicy
import GangwayScreens
import Testing

@Suite("Welcome, sign-in and consent screens")
struct OnboardingScreenTests {
    @Test func anUnconfiguredAppOffersItsActivationMethods() {
        var screen = WelcomeScreen(configuration: .notConfigured([.email, .qrCode]), offersDemoMode: true)
        #expect(screen.activationMethods == [.email, .qrCode])
        #expect(screen.handle(.signIn).outcome == nil, "sign-in needs a configured app")
        #expect(screen.handle(.activate(.link("gangway://activate?x"))).outcome == nil)
        #expect(screen.notice == screen.strings.methodUnavailable)
        #expect(screen.handle(.activate(.email("  "))).outcome == nil)
        #expect(screen.notice == screen.strings.emptyActivation)
        #expect(screen.handle(.activate(.email("alice@example.com"))).outcome == .activate(.email("alice@example.com")))
    }

    @Test func termsMustBeAcceptedBeforeGoingOn() {
        let links = [WelcomeScreen.Link(title: "Terms", url: "https://example.com/terms")]
        var screen = WelcomeScreen(configuration: .configured, offersDemoMode: true, termsLinks: links)
        #expect(screen.requiresTerms)
        #expect(screen.handle(.signIn).outcome == nil)
        #expect(screen.notice == screen.strings.termsRequired)
        _ = screen.handle(.acceptTerms(true))
        _ = screen.handle(.acceptTerms(false))
        #expect(screen.handle(.signIn).outcome == nil, "unticking the box counts")
        _ = screen.handle(.acceptTerms(true))
        #expect(screen.handle(.signIn).outcome == .signIn)
    }

    @Test func demoModeOnlyWhenOffered() {
        var without = WelcomeScreen(configuration: .configured)
        #expect(without.handle(.demoMode).outcome == nil)
        var with = WelcomeScreen(
            configuration: .notConfigured(WelcomeScreen.ActivationMethod.allCases),
            offersDemoMode: true
        )
        #expect(with.handle(.demoMode).outcome == .demoMode)
    }

    @Test func signInNeedsBothFieldsAndShowsTheServersMessage() {
        var screen = SignInScreen(username: "alice", message: "Wrong user name or password.")
        #expect(screen.message == "Wrong user name or password.")
        #expect(screen.handle(.submit).outcome == nil)
        #expect(screen.notice == screen.strings.missing)
        _ = screen.handle(.password("pw-1"))
        #expect(screen.hasPassword)
        #expect(screen.handle(.submit).outcome == .credentials(username: "alice", password: "pw-1"))

        let throttled = SignInScreen(retryAfter: .seconds(30))
        #expect(throttled.throttleNotice == "Too many attempts. Try again in 30 seconds.")
        var locked = SignInScreen(allowsCancel: false)
        #expect(locked.handle(.cancel).outcome == nil)
        #expect(
            locked.handle(.signIn(username: " bob ", password: "x")).outcome
                == .credentials(username: "bob", password: "x")
        )
    }

    @Test func consentIsAcceptedOnTheLastPageAndCarriesItsVersion() {
        let pages = [ConsentScreen.Page(title: "1", body: "a"), ConsentScreen.Page(title: "2", body: "b")]
        var screen = ConsentScreen(topic: "usage", version: 3, isRequired: true, pages: pages)
        #expect(screen.handle(.accept).outcome == nil, "not on the last page yet")
        _ = screen.handle(.next)
        _ = screen.handle(.next)
        #expect(screen.pageIndex == 1)
        _ = screen.handle(.back)
        _ = screen.handle(.next)
        #expect(screen.handle(.accept).outcome == .accepted(version: 3))
        var declining = ConsentScreen(topic: "usage", version: 3, isRequired: false, pages: pages)
        #expect(declining.handle(.decline).outcome == .declined(version: 3))
        var pageless = ConsentScreen(topic: "usage", version: 1, isRequired: false, pages: [])
        _ = pageless.handle(.next)
        #expect(pageless.pageIndex == 0)
        #expect(pageless.handle(.accept).outcome == .accepted(version: 1), "no pages: the answer is asked at once")
    }

    @Test func eulaFeedbackUserPickerAndErrorScreens() {
        var eula = EULAScreen(version: "2.1", text: "…")
        #expect(eula.handle(.accept).outcome == .accepted(version: "2.1"))

        for transition in PasscodePolicyTransition.allCases {
            var feedback = FeedbackScreen(announcing: transition)
            #expect(!feedback.texts.headline.isEmpty, "\(transition) has its own text")
            #expect(feedback.handle(.continue).outcome == .acknowledged)
        }
        let headlines = Set(PasscodePolicyTransition.allCases.map { FeedbackScreen(announcing: $0).texts.detail })
        #expect(headlines.count >= 6)

        let alice = UserPickerScreen.User(id: UUID(), displayName: "Alice")
        let bob = UserPickerScreen.User(id: UUID(), displayName: "Bob")
        var picker = UserPickerScreen(users: [alice, bob], current: alice.id)
        #expect(picker.handle(.select(UUID())).outcome == nil)
        #expect(picker.notice == picker.strings.unknownUser)
        #expect(picker.handle(.selectNamed("Bob")).outcome == .selected(bob.id))
        var noAdding = UserPickerScreen(users: [alice], current: nil, allowsAddUser: false)
        #expect(noAdding.handle(.addUser).outcome == nil)

        var error = ErrorScreen(message: "The server cannot be reached.", allowsRetry: false)
        #expect(error.handle(.retry).outcome == nil)
        #expect(error.handle(.cancel).outcome == .cancel)
    }
}
