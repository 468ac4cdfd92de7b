import GangwayScreens
import Synchronization

/// A ``Presenter`` that answers screens from a script, for tests and scripted demos.
///
/// Each ``Answer`` names the screen it expects and the inputs to give it. A screen that
/// comes out of order, an input that does not fit, a screen that finishes before its
/// inputs are used or does not finish when they run out: each is recorded and thrown as
/// a ``PresenterError``. A test ends with ``verifyFinished()``, which also fails when
/// answers are left over, so a flow that skipped a screen fails too.
///
/// ```swift
/// let presenter = ScriptedPresenter([
///     .welcome(.activate(.email("alice@example.com"))),
///     .signIn(.signIn(username: "alice", password: "…")),
///     .passcodeCreate(.enter("2468-Fuel"), .enter("2468-Fuel")),
/// ])
/// ```
///
/// Messages name screens, never what was typed.
public final class ScriptedPresenter: Presenter {
    /// The answer to one screen.
    public struct Answer: Sendable {
        /// The screen expected.
        public let kind: ScreenKind
        let inputs: [any Sendable]
        /// For a screen the flow dismisses: what happens while it is up (someone approves
        /// elsewhere); then the screen waits until the flow cancels it.
        let whileShown: (@Sendable (any ScreenModel) async throws -> Void)?

        /// An answer of inputs to the screen of `kind`; each input must be that screen's
        /// `Input` type.
        public init(_ kind: ScreenKind, inputs: [any Sendable]) {
            self.kind = kind
            self.inputs = inputs
            self.whileShown = nil
        }

        private init(_ kind: ScreenKind, whileShown: @escaping @Sendable (any ScreenModel) async throws -> Void) {
            self.kind = kind
            self.inputs = []
            self.whileShown = whileShown
        }

        /// The device-code screen, answered by `approve` (which plays the person at the
        /// verification page on another device, given the screen with its code); the
        /// screen then stays up until the flow dismisses it.
        ///
        /// The other device is not the app: the flow dismissing the screen (it can see the
        /// approval before `approve` has read the page's answer) does not cancel it.
        public static func deviceCode(
            approve: @escaping @Sendable (DeviceCodeScreen) async throws -> Void
        ) -> Self {
            Self(.deviceCode) { screen in
                guard let screen = screen as? DeviceCodeScreen else { return }
                try await Task { try await approve(screen) }.value
            }
        }

        /// The device-code screen, cancelled by the person.
        public static func deviceCode(_ inputs: DeviceCodeScreen.Input...) -> Self {
            Self(.deviceCode, inputs: inputs)
        }

        public static func welcome(_ inputs: WelcomeScreen.Input...) -> Self { Self(.welcome, inputs: inputs) }
        public static func signIn(_ inputs: SignInScreen.Input...) -> Self { Self(.signIn, inputs: inputs) }
        public static func passcodeCreate(_ inputs: PasscodeCreateScreen.Input...) -> Self {
            Self(.passcodeCreate, inputs: inputs)
        }
        public static func passcodeInput(_ inputs: PasscodeInputScreen.Input...) -> Self {
            Self(.passcodeInput, inputs: inputs)
        }
        public static func passcodeChange(_ inputs: PasscodeChangeScreen.Input...) -> Self {
            Self(.passcodeChange, inputs: inputs)
        }
        public static func feedback(_ inputs: FeedbackScreen.Input...) -> Self { Self(.feedback, inputs: inputs) }
        public static func userPicker(_ inputs: UserPickerScreen.Input...) -> Self { Self(.userPicker, inputs: inputs) }
        public static func existingUser(_ inputs: ExistingUserScreen.Input...) -> Self {
            Self(.existingUser, inputs: inputs)
        }
        public static func consent(_ inputs: ConsentScreen.Input...) -> Self { Self(.consent, inputs: inputs) }
        public static func eula(_ inputs: EULAScreen.Input...) -> Self { Self(.eula, inputs: inputs) }
        public static func permission(_ inputs: PermissionScreen.Input...) -> Self {
            Self(.permission, inputs: inputs)
        }
        public static func error(_ inputs: ErrorScreen.Input...) -> Self { Self(.error, inputs: inputs) }
    }

    private struct State {
        var answers: [Answer]
        var next = 0
        var presented: [any ScreenModel] = []
        var finished: [any ScreenModel] = []
        var failures: [PresenterError] = []
        var hideCount = 0

        mutating func fail(_ error: PresenterError) -> PresenterError {
            failures.append(error)
            return error
        }
    }

    private let state: Mutex<State>

    public init(_ answers: [Answer] = []) {
        state = Mutex(State(answers: answers))
    }

    /// Adds answers at the end of the script.
    public func append(_ answers: Answer...) {
        state.withLock { $0.answers.append(contentsOf: answers) }
    }

    public func present<Screen: ScreenModel>(_ screen: Screen) async throws -> Screen.Outcome {
        let answer = try state.withLock { state throws(PresenterError) -> Answer in
            state.presented.append(screen)
            guard state.next < state.answers.count else {
                throw state.fail(.unexpectedScreen("screen \(screen.kind) came after the script ended"))
            }
            let answer = state.answers[state.next]
            state.next += 1
            guard answer.kind == screen.kind else {
                throw state.fail(
                    .unexpectedScreen("answer \(state.next) expected screen \(answer.kind), got \(screen.kind)")
                )
            }
            return answer
        }
        if let whileShown = answer.whileShown {
            do {
                try await whileShown(screen)
            } catch {
                throw fail(.unexpectedInput("the action while screen \(screen.kind) was up failed: \(error)"))
            }
            // Up until the flow dismisses it.
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
            state.withLock { $0.finished.append(screen) }
            throw CancellationError()
        }
        var screen = screen
        for (position, raw) in answer.inputs.enumerated() {
            guard let input = raw as? Screen.Input else {
                throw fail(.unexpectedInput("input \(position + 1) for screen \(screen.kind) is of another screen"))
            }
            let step = screen.handle(input)
            guard case .finish(let outcome) = step else { continue }
            let unused = answer.inputs.count - position - 1
            guard unused == 0 else {
                throw fail(.unexpectedInput("screen \(screen.kind) finished with \(unused) input(s) unused"))
            }
            state.withLock { $0.finished.append(screen) }
            return outcome
        }
        state.withLock { $0.finished.append(screen) }
        throw fail(.unfinished("screen \(screen.kind) did not finish after \(answer.inputs.count) input(s)"))
    }

    public func hideAll() async {
        state.withLock { $0.hideCount += 1 }
    }

    /// Throws the first failure recorded, or ``PresenterError/unfinished`` when answers
    /// are left over.
    public func verifyFinished() throws(PresenterError) {
        try state.withLock { state throws(PresenterError) in
            if let failure = state.failures.first { throw failure }
            guard state.next == state.answers.count else {
                let left = state.answers[state.next...].map(\.kind.description).joined(separator: ", ")
                throw .unfinished("\(state.answers.count - state.next) answer(s) left: \(left)")
            }
        }
    }

    /// The kinds of the screens presented so far, in order.
    public var presentedKinds: [ScreenKind] { state.withLock { $0.presented.map(\.kind) } }

    /// The screens of type `Screen` as they were presented.
    public func presented<Screen: ScreenModel>(_ type: Screen.Type) -> [Screen] {
        state.withLock { $0.presented.compactMap { $0 as? Screen } }
    }

    /// The screens of type `Screen` as they were when they finished or gave up.
    public func finished<Screen: ScreenModel>(_ type: Screen.Type) -> [Screen] {
        state.withLock { $0.finished.compactMap { $0 as? Screen } }
    }

    /// How many times the flow hid every screen.
    public var hideCount: Int { state.withLock { $0.hideCount } }

    /// Failures recorded so far (each was also thrown to the flow).
    public var failures: [PresenterError] { state.withLock { $0.failures } }

    private func fail(_ error: PresenterError) -> PresenterError {
        state.withLock { $0.fail(error) }
    }
}
