import GangwayPolicy

/// Creating a passcode: enter it against the policy's live checklist, confirm it, then
/// choose biometric unlock when the policy allows it and the device has it. The user may
/// skip when the policy allows.
public struct PasscodeCreateScreen: ScreenModel {
    /// Where the screen is.
    public enum Phase: Sendable, Hashable {
        case enter
        case confirm
        /// Asking whether to unlock with biometrics from now on.
        case biometricOptIn
    }

    /// What the user can do.
    public enum Input: Sendable, Hashable {
        /// The field's text changed (the checklist follows it).
        case edit(Secret)
        /// Submit the field.
        case submit
        /// Type `text` and submit it: one step for scripts.
        case enter(Secret)
        /// Answer the biometric opt-in.
        case biometrics(Bool)
        /// Go on without a passcode, when the policy allows.
        case skip
        /// Back to entering a new passcode from the confirmation.
        case back
    }

    /// What the screen ends with.
    public enum Outcome: Sendable, Hashable {
        /// A passcode was chosen, with or without biometric unlock.
        case created(passcode: Secret, biometrics: Bool)
        /// The user chose not to set one.
        case skipped
    }

    /// Texts shown on the screen.
    public struct Strings: Sendable, Hashable {
        public var title = StringTable.text("passcodeCreate.title")
        public var enterPrompt = StringTable.text("passcodeCreate.enterPrompt")
        public var confirmPrompt = StringTable.text("passcodeCreate.confirmPrompt")
        public var mismatch = StringTable.text("passcodeCreate.mismatch")
        public var rejected = StringTable.text("passcodeCreate.rejected")
        /// `%@` is the sensor's name (``PasscodeCreateScreen/biometricName``).
        public var biometricTitle = StringTable.text("passcodeCreate.biometricTitle")
        /// `%@` is the sensor's name.
        public var biometricDetail = StringTable.text("passcodeCreate.biometricDetail")
        public var enableBiometrics = StringTable.text("passcodeCreate.enableBiometrics")
        public var notNow = StringTable.text("passcodeCreate.notNow")
        public var skip = StringTable.text("passcodeCreate.skip")
        public var skipNotAllowed = StringTable.text("passcodeCreate.skipNotAllowed")
        public init() {}
    }

    public var kind: ScreenKind { .passcodeCreate }
    /// Texts, replaceable by the app.
    public var strings: Strings
    /// The new passcode being entered and confirmed.
    public private(set) var entry: NewPasscodeEntry
    /// The current phase.
    public private(set) var phase = Phase.enter
    /// Whether the device can unlock with biometrics now.
    public let biometricsAvailable: Bool
    /// The name of the device's sensor in the texts: "Touch ID", "Face ID", "Optic ID",
    /// "your fingerprint", or "biometrics" when it is not known.
    public let biometricName: String
    /// A message for the user about the last input, if it was not taken.
    public private(set) var notice: String?
    /// Shown above the field, for example why a new passcode is needed.
    public var reason: String?
    private var chosen: Secret?
    private let validate: @Sendable (Secret) -> String?

    /// - Parameters:
    ///   - validate: the app's extra check on a passcode that meets the policy; return a
    ///     message to refuse it.
    public init(
        policy: PasscodePolicy,
        biometricsAvailable: Bool,
        biometricName: String = StringTable.text("biometrics.unknown"),
        reason: String? = nil,
        strings: Strings = Strings(),
        validate: @escaping @Sendable (Secret) -> String? = { _ in nil }
    ) {
        entry = NewPasscodeEntry(policy: policy)
        self.biometricsAvailable = biometricsAvailable
        self.biometricName = biometricName
        self.reason = reason
        self.strings = strings
        self.validate = validate
    }

    /// The biometric opt-in's title, naming the sensor.
    public var biometricTitle: String { strings.biometricTitle.naming(biometricName) }
    /// The biometric opt-in's text, naming the sensor.
    public var biometricDetail: String { strings.biometricDetail.naming(biometricName) }

    /// Whether the skip button shows.
    public var allowsSkip: Bool { entry.policy.allowsSkip && phase != .biometricOptIn }
    /// Whether the biometric opt-in will be offered.
    public var offersBiometrics: Bool { entry.policy.allowsBiometrics && biometricsAvailable }

    public mutating func handle(_ input: Input) -> ScreenStep<Outcome> {
        notice = nil
        switch (phase, input) {
        case (.enter, .edit(let text)), (.confirm, .edit(let text)):
            entry.edit(text)
            return .stay
        case (.enter, .submit), (.confirm, .submit):
            return submit()
        case (.enter, .enter(let text)), (.confirm, .enter(let text)):
            entry.edit(text)
            return submit()
        case (.confirm, .back):
            entry.restart()
            phase = .enter
            return .stay
        case (.enter, .skip), (.confirm, .skip):
            guard entry.policy.allowsSkip else {
                notice = strings.skipNotAllowed
                return .stay
            }
            return .finish(.skipped)
        case (.biometricOptIn, .biometrics(let enable)):
            guard let chosen else { return .stay }
            return .finish(.created(passcode: chosen, biometrics: enable))
        default:
            return .stay
        }
    }

    private mutating func submit() -> ScreenStep<Outcome> {
        let passcode = entry.submit(validate: validate)
        notice = entry.problemText(mismatch: strings.mismatch, rejected: strings.rejected)
        phase = entry.phase == .confirm ? .confirm : .enter
        guard let passcode else { return .stay }
        guard offersBiometrics else { return .finish(.created(passcode: passcode, biometrics: false)) }
        chosen = passcode
        phase = .biometricOptIn
        return .stay
    }
}
