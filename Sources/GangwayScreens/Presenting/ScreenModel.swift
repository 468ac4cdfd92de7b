/// A headless onboarding screen: its state, the inputs it accepts, and the outcome it
/// ends with. It draws nothing; a renderer shows ``state``-like properties and feeds
/// the user's inputs to ``handle(_:)`` until the screen finishes.
///
/// Screens are values and hold no I/O, so every rule they apply (a passcode checklist,
/// a mismatch, a required checkbox) is tested without a UI.
public protocol ScreenModel: Sendable {
    /// What the user can do on the screen.
    associatedtype Input: Sendable
    /// What the screen ends with.
    associatedtype Outcome: Sendable

    /// Which screen this is, for renderers and scripts.
    var kind: ScreenKind { get }

    /// Applies one input. Returns ``ScreenStep/finish(_:)`` when the screen is done, or
    /// ``ScreenStep/stay`` with the state updated (a message shown, a phase advanced).
    mutating func handle(_ input: Input) -> ScreenStep<Outcome>
}

/// The result of one input on a screen.
public enum ScreenStep<Outcome: Sendable>: Sendable {
    /// The screen stays up, its state updated.
    case stay
    /// The screen is done.
    case finish(Outcome)

    /// The outcome, when the screen finished.
    public var outcome: Outcome? {
        if case .finish(let outcome) = self { return outcome }
        return nil
    }
}

/// The onboarding screens Gangway models.
public enum ScreenKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case welcome
    case signIn
    case deviceCode
    case passcodeCreate
    case passcodeInput
    case passcodeChange
    case feedback
    case userPicker
    case existingUser
    case consent
    case eula
    case permission
    case error

    public var description: String { rawValue }
}
