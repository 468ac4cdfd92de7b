import Foundation
import GangwayPolicy
import GangwayScreens
import GangwayStore
import GangwaySystem

/// Shows every GangwayScreens screen in a terminal (or as plain lines) and feeds the
/// person's answers to it until it finishes.
///
/// Each screen is drawn from its state, one answer is read, the screen handles it, and
/// the screen is drawn again with its notice until it finishes; the rules (a checklist,
/// a mismatch, a required box) are the screen model's, not the terminal's.
public struct TerminalPresenter: Presenter {
    let console: Console
    /// The time a countdown counts from.
    let now: @Sendable () -> Date

    public init(console: Console, now: @escaping @Sendable () -> Date = WallClock.now) {
        self.console = console
        self.now = now
    }

    public func present<Screen: ScreenModel>(_ screen: Screen) async throws -> Screen.Outcome {
        let outcome: any Sendable
        switch screen {
        case let screen as WelcomeScreen: outcome = try await run(screen)
        case let screen as SignInScreen: outcome = try await run(screen)
        case let screen as DeviceCodeScreen: outcome = try await run(screen)
        case let screen as PasscodeCreateScreen: outcome = try await run(screen)
        case let screen as PasscodeInputScreen: outcome = try await run(screen)
        case let screen as PasscodeChangeScreen: outcome = try await run(screen)
        case let screen as FeedbackScreen: outcome = try await run(screen)
        case let screen as UserPickerScreen: outcome = try await run(screen)
        case let screen as ExistingUserScreen: outcome = try await run(screen)
        case let screen as ConsentScreen: outcome = try await run(screen)
        case let screen as EULAScreen: outcome = try await run(screen)
        case let screen as PermissionScreen: outcome = try await run(screen)
        case let screen as ErrorScreen: outcome = try await run(screen)
        default: throw PresenterError.unexpectedScreen("the terminal cannot show a \(screen.kind) screen")
        }
        guard let typed = outcome as? Screen.Outcome else {
            throw PresenterError.unexpectedScreen("the \(screen.kind) screen ended with an unexpected outcome")
        }
        return typed
    }

    public func hideAll() async {
        console.clear(saying: localized("presenter.hidden"))
    }

    /// Hands inputs to `screen` until it finishes; `next` draws the screen and reads one input.
    func drive<Screen: ScreenModel>(
        _ screen: Screen,
        next: (Screen) async throws -> Screen.Input
    ) async throws -> Screen.Outcome {
        var screen = screen
        while true {
            let input = try await next(screen)
            if case .finish(let outcome) = screen.handle(input) { return outcome }
        }
    }

    /// The checklist of `evaluation`, a line per rule.
    func checklist(_ evaluation: PasscodeEvaluation) -> [String] {
        evaluation.results.map { result in
            if console.isInteractive {
                result.isSatisfied
                    ? "  " + console.styled("✓ " + result.rule.text, .green)
                    : "  " + console.styled("· " + result.rule.text, .dim)
            } else {
                "  [\(result.isSatisfied ? "x" : " ")] \(result.rule.text)"
            }
        }
    }
}
