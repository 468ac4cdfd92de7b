import GangwayFlows
import GangwayPolicy
import GangwayScreens
import Synchronization

/// Answers the passcode screens a benchmark's flows show, with the passcode it was last
/// told to use, and counts them: the benchmark's own presenter, so `gangway-benchmark`
/// links no test support. Any other screen is an error.
final class PasscodePresenter: Presenter {
    private let state: Mutex<(passcode: Secret, shown: Int)>

    init(_ passcode: Secret) {
        state = Mutex((passcode, 0))
    }

    /// The passcode the next screens get.
    func use(_ passcode: Secret) { state.withLock { $0.passcode = passcode } }

    /// How many screens were answered.
    var shown: Int { state.withLock { $0.shown } }

    func present<Screen: ScreenModel>(_ screen: Screen) async throws -> Screen.Outcome {
        let passcode = state.withLock { state in
            state.shown += 1
            return state.passcode
        }
        let outcome: (any Sendable)?
        switch screen {
        case var create as PasscodeCreateScreen:
            // The passcode, then its confirmation.
            let first = create.handle(.enter(passcode)).outcome
            outcome = first ?? create.handle(.enter(passcode)).outcome
        case var input as PasscodeInputScreen:
            outcome = input.handle(.enter(passcode)).outcome
        default:
            throw PresenterError.unexpectedScreen("the benchmark answers passcode screens, not \(screen.kind)")
        }
        guard let typed = outcome as? Screen.Outcome else {
            throw PresenterError.unfinished("the \(screen.kind) screen did not take the passcode")
        }
        return typed
    }

    func hideAll() async {}
}

/// A session UI with nothing to show: the benchmark has no screens of its own.
struct NoSessionUI: SessionUIManaging {
    func showSplashScreen() async {}
    func hideApplicationScreens() async {}
    func showApplicationScreens(for session: Session) async {}
}
