import GangwayPolicy

/// Changing the passcode: the current one, then a new one against the policy's live
/// checklist, then the new one again. Biometric unlock stays as it was.
public struct PasscodeChangeScreen: ScreenModel {
    /// Where the screen is.
    public enum Phase: Sendable, Hashable {
        case current
        case enter
        case confirm
    }

    /// What the user can do.
    public enum Input: Sendable, Hashable {
        /// The field's text changed.
        case edit(Secret)
        /// Submit the field.
        case submit
        /// Type `text` and submit it.
        case enter(Secret)
        /// Give up, when allowed; with a ``cancelConfirmation`` the screen asks first.
        case cancel
        /// Answer the cancel confirmation: `true` cancels, `false` goes back.
        case confirmCancel(Bool)
    }

    /// What the screen ends with.
    public enum Outcome: Sendable, Hashable {
        case changed(current: Secret, new: Secret)
        case cancelled
    }

    /// Texts shown on the screen.
    public struct Strings: Sendable, Hashable {
        public var title = StringTable.text("passcodeChange.title")
        public var currentPrompt = StringTable.text("passcodeChange.currentPrompt")
        public var enterPrompt = StringTable.text("passcodeChange.enterPrompt")
        public var confirmPrompt = StringTable.text("passcodeChange.confirmPrompt")
        public var mismatch = StringTable.text("passcodeChange.mismatch")
        public var rejected = StringTable.text("passcodeChange.rejected")
        public var sameAsCurrent = StringTable.text("passcodeChange.sameAsCurrent")
        public var wrongCurrent = StringTable.text("passcodeChange.wrongCurrent")
        /// The same words as the passcode screen's: the count of tries is one count.
        public var triesLeft = StringTable.text("passcodeInput.triesLeft")
        public var lastTry = StringTable.text("passcodeInput.lastTry")
        public var empty = StringTable.text("passcodeChange.empty")
        public init() {}
    }

    public var kind: ScreenKind { .passcodeChange }
    /// Texts, replaceable by the app.
    public var strings: Strings
    /// The current phase.
    public private(set) var phase = Phase.current
    /// The new passcode being entered and confirmed.
    public private(set) var entry: NewPasscodeEntry
    /// Whether the change may be abandoned (not when a policy change forces it).
    public let allowsCancel: Bool
    /// Why the passcode must change, shown above the field.
    public var reason: String?
    /// The question asked before cancelling; `nil` cancels at once.
    public let cancelConfirmation: CancelConfirmation?
    /// Wrong current passcodes the store still takes before it erases the user's data;
    /// `nil` when it has no limit.
    public let triesLeft: Int?
    /// Whether the screen is asking ``cancelConfirmation``.
    public private(set) var isConfirmingCancel = false
    /// A message about the last input, if it was not taken.
    public private(set) var notice: String?
    private var current: Secret?
    private let validate: @Sendable (Secret) -> String?

    /// - Parameters:
    ///   - afterWrongCurrent: the flow shows the screen again after the current passcode
    ///     proved wrong.
    ///   - triesLeft: wrong current passcodes the store still takes, said after a wrong
    ///     one (and before the last try, whatever came before).
    ///   - validate: the app's extra check on a new passcode that meets the policy;
    ///     return a message to refuse it.
    ///   - verifiedCurrent: the current passcode, when the person typed it a moment ago to
    ///     unlock (a change the policy forces right after): the screen starts at the new
    ///     passcode instead of asking it again.
    public init(
        policy: PasscodePolicy,
        allowsCancel: Bool = true,
        reason: String? = nil,
        afterWrongCurrent: Bool = false,
        triesLeft: Int? = nil,
        cancelConfirmation: CancelConfirmation? = nil,
        strings: Strings = Strings(),
        validate: @escaping @Sendable (Secret) -> String? = { _ in nil },
        verifiedCurrent: Secret? = nil
    ) {
        entry = NewPasscodeEntry(policy: policy)
        if let verifiedCurrent, !afterWrongCurrent {
            current = verifiedCurrent
            phase = .enter
        }
        self.allowsCancel = allowsCancel
        self.cancelConfirmation = cancelConfirmation
        self.validate = validate
        self.reason = reason
        self.strings = strings
        self.triesLeft = triesLeft
        var warning: [String] = []
        if afterWrongCurrent { warning.append(strings.wrongCurrent) }
        if let triesLeft, phase == .current, afterWrongCurrent || triesLeft <= 1 {
            warning.append(triesLeft == 1 ? strings.lastTry : StringTable.format(strings.triesLeft, [triesLeft]))
        }
        if !warning.isEmpty { notice = warning.joined(separator: " ") }
    }

    public mutating func handle(_ input: Input) -> ScreenStep<Outcome> {
        notice = nil
        let wasConfirming = isConfirmingCancel
        isConfirmingCancel = false
        switch (phase, input) {
        case (_, .cancel):
            guard allowsCancel else { return .stay }
            guard cancelConfirmation == nil else {
                isConfirmingCancel = true
                return .stay
            }
            return .finish(.cancelled)
        case (_, .confirmCancel(let cancel)):
            return cancel && wasConfirming ? .finish(.cancelled) : .stay
        case (.current, .edit), (.current, .submit):
            return .stay
        case (.current, .enter(let text)):
            guard !text.isEmpty else {
                notice = strings.empty
                return .stay
            }
            current = text
            phase = .enter
            return .stay
        case (_, .edit(let text)):
            entry.edit(text)
            return .stay
        case (_, .submit):
            return submit()
        case (_, .enter(let text)):
            entry.edit(text)
            return submit()
        }
    }

    private mutating func submit() -> ScreenStep<Outcome> {
        let current = self.current
        let validate = self.validate
        let new = entry.submit { candidate in
            candidate == current ? self.strings.sameAsCurrent : validate(candidate)
        }
        notice = entry.problemText(mismatch: strings.mismatch, rejected: strings.rejected)
        phase = entry.phase == .confirm ? .confirm : .enter
        guard let new, let current else { return .stay }
        return .finish(.changed(current: current, new: new))
    }
}
