import GangwayPolicy

/// A message with one button: title, headline, detail. Announces a passcode policy change
/// before the change runs, and any other news a flow has for the user.
public struct FeedbackScreen: ScreenModel {
    /// What the user can do.
    public enum Input: Sendable, Hashable {
        case `continue`
        /// The second button, when the screen has one.
        case secondary
    }

    /// What the screen ends with.
    public enum Outcome: Sendable, Hashable {
        case acknowledged
        /// The person chose the second button.
        case declined
    }

    /// The texts of one feedback screen.
    public struct Texts: Sendable, Hashable {
        public var title: String
        public var headline: String
        public var detail: String
        public var button: String
        /// A second button ("Not Now"), for news that offers a choice; `nil` for none.
        public var secondaryButton: String?

        public init(
            title: String,
            headline: String,
            detail: String,
            button: String = StringTable.text("feedback.continue"),
            secondaryButton: String? = nil
        ) {
            self.title = title
            self.headline = headline
            self.detail = detail
            self.button = button
            self.secondaryButton = secondaryButton
        }

        /// The texts with `%@` replaced by the biometric sensor's name.
        public func naming(_ sensor: String) -> Texts {
            var texts = self
            texts.title = title.naming(sensor)
            texts.headline = headline.naming(sensor)
            texts.detail = detail.naming(sensor)
            texts.button = button.naming(sensor)
            texts.secondaryButton = secondaryButton?.naming(sensor)
            return texts
        }
    }

    /// The texts for each policy transition, replaceable by the app.
    public struct PolicyStrings: Sendable, Hashable {
        public var texts: [PasscodePolicyTransition: Texts]
        /// The forced passcode change when the new rules are looser: simpler passcodes
        /// are allowed, and the change is still asked (``PasscodePolicyTransition/passcodeToPasscode``
        /// under ``texts`` says why when they are stricter).
        public var looserRules: Texts
        /// The same when some rules are stricter and some looser.
        public var changedRules: Texts
        /// New rules that the passcode just typed meets: announced, the passcode kept, and
        /// a change offered (the second button).
        public var keptPasscode: Texts

        public init() {
            let title = StringTable.text("policy.title")
            // Each text is in the string table under its transition's name.
            func announcing(_ key: String) -> Texts {
                Texts(
                    title: title,
                    headline: StringTable.text("policy.\(key).headline"),
                    detail: StringTable.text("policy.\(key).detail")
                )
            }
            texts = Dictionary(
                uniqueKeysWithValues: PasscodePolicyTransition.allCases.map { ($0, announcing($0.rawValue)) }
            )
            looserRules = announcing("passcodeToPasscode.looser")
            changedRules = announcing("passcodeToPasscode.mixed")
            keptPasscode = Texts(
                title: title,
                headline: StringTable.text("policy.passcodeToPasscode.kept.headline"),
                detail: StringTable.text("policy.passcodeToPasscode.kept.detail"),
                button: StringTable.text("policy.passcodeToPasscode.kept.keep"),
                secondaryButton: StringTable.text("policy.passcodeToPasscode.kept.change")
            )
        }

        /// The texts for `transition`.
        public subscript(transition: PasscodePolicyTransition) -> Texts {
            texts[transition] ?? Texts(title: StringTable.text("policy.title"), headline: "", detail: "")
        }

        /// The texts for `transition` when the rules moved as `change` says: a forced
        /// passcode change says whether the rules became stricter, looser or both.
        public subscript(transition: PasscodePolicyTransition, change: PasscodeRuleChange) -> Texts {
            guard transition == .passcodeToPasscode else { return self[transition] }
            switch change {
            case .looser: return looserRules
            case .mixed: return changedRules
            case .stricter, .unchanged: return self[transition]
            }
        }
    }

    public var kind: ScreenKind { .feedback }
    /// What the screen says.
    public var texts: Texts
    /// The policy transition it announces, if that is what it is for.
    public let transition: PasscodePolicyTransition?

    public init(texts: Texts) {
        self.texts = texts
        transition = nil
    }

    /// The screen announcing `transition`; `%@` in its texts names the device's
    /// biometric sensor.
    /// - Parameter ruleChange: For a forced passcode change, which way the rules moved,
    ///   so the person is told the true reason: tighter rules, or looser ones (the change
    ///   is asked either way, and a simpler passcode is then allowed).
    public init(
        announcing transition: PasscodePolicyTransition,
        ruleChange: PasscodeRuleChange = .stricter,
        strings: PolicyStrings = PolicyStrings(),
        biometricName: String = StringTable.text("biometrics.unknown")
    ) {
        texts = strings[transition, ruleChange].naming(biometricName)
        self.transition = transition
    }

    /// The screen that announces new rules the current passcode meets: it stays, and the
    /// second button offers to change it.
    public init(keepingPasscode strings: PolicyStrings = PolicyStrings()) {
        texts = strings.keptPasscode
        transition = .passcodeToPasscode
    }

    public mutating func handle(_ input: Input) -> ScreenStep<Outcome> {
        switch input {
        case .continue: .finish(.acknowledged)
        case .secondary: texts.secondaryButton == nil ? .stay : .finish(.declined)
        }
    }
}
