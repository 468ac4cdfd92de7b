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
            button: String = "Continue",
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

        public init() {
            let title = "Passcode Policy Changed"
            texts = [
                .noneToPasscode: Texts(
                    title: title,
                    headline: "A passcode is now required",
                    detail: "Your organisation now protects this app with a passcode. Choose one to continue."
                ),
                .noneToPasscodeWithBiometrics: Texts(
                    title: title,
                    headline: "A passcode is now required",
                    detail: "Choose a passcode to continue. You can also unlock with %@."
                ),
                .passcodeToPasscode: Texts(
                    title: title,
                    headline: "Your passcode must change",
                    detail: "Your passcode does not meet the new rules. Enter it once more, then choose a new one."
                ),
                .passcodeToNone: Texts(
                    title: title,
                    headline: "The passcode is turned off",
                    detail: "Your organisation no longer requires a passcode. There is nothing for you to do."
                ),
                .passcodeToPasscodeWithBiometricsOffered: Texts(
                    title: title,
                    headline: "Unlocking with %@ is now allowed",
                    detail: "You can turn on unlocking with %@ in the settings."
                ),
                .passcodeToPasscodeWithSkipOffered: Texts(
                    title: title,
                    headline: "The passcode is now optional",
                    detail: "Your organisation no longer requires a passcode. You can turn it off in the settings."
                ),
                .biometricsToPasscodeOnly: Texts(
                    title: title,
                    headline: "Unlocking with %@ is turned off",
                    detail:
                        "Your organisation no longer allows biometric unlock. Unlock with your passcode from now on."
                ),
                .biometricsToNone: Texts(
                    title: title,
                    headline: "The passcode and biometrics are turned off",
                    detail: "Your organisation no longer requires a passcode. There is nothing for you to do."
                ),
            ]
        }

        /// The texts for `transition`.
        public subscript(transition: PasscodePolicyTransition) -> Texts {
            texts[transition] ?? Texts(title: "Passcode Policy Changed", headline: "", detail: "")
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
    public init(
        announcing transition: PasscodePolicyTransition,
        strings: PolicyStrings = PolicyStrings(),
        biometricName: String = "biometrics"
    ) {
        texts = strings[transition].naming(biometricName)
        self.transition = transition
    }

    public mutating func handle(_ input: Input) -> ScreenStep<Outcome> {
        switch input {
        case .continue: .finish(.acknowledged)
        case .secondary: texts.secondaryButton == nil ? .stay : .finish(.declined)
        }
    }
}
