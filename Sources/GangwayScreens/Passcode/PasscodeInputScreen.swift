import Foundation
import GangwayPolicy

/// Unlocking with the passcode: shows the tries left after a wrong one, offers a reset
/// ("forgot passcode") and, when the app allows, cancel. When biometric unlock is on,
/// the renderer asks for biometrics first and falls back to the passcode.
///
/// The screen only collects the answer; the flow checks it and, after a wrong passcode,
/// shows the screen again with ``triesLeft`` lowered and the field empty.
public struct PasscodeInputScreen: ScreenModel {
    /// What the user can do.
    public enum Input: Sendable, Hashable {
        /// Type `passcode` and submit it.
        case enter(Secret)
        /// Unlock with biometrics instead.
        case useBiometrics
        /// "Forgot passcode": start the reset.
        case reset
        /// Dismiss without unlocking, when allowed; with a ``cancelConfirmation`` the
        /// screen asks first.
        case cancel
        /// Answer the cancel confirmation: `true` cancels, `false` goes back.
        case confirmCancel(Bool)
        /// On a shared device: go to the user picker (another person's shift).
        case switchUser
        /// On a shared device: onboard a new user.
        case addUser
    }

    /// What the screen ends with.
    public enum Outcome: Sendable, Hashable {
        case passcode(Secret)
        case biometrics
        case reset
        case cancelled
        case switchUser
        case addUser
    }

    /// Texts shown on the screen.
    public struct Strings: Sendable, Hashable {
        public var title = StringTable.text("passcodeInput.title")
        public var prompt = StringTable.text("passcodeInput.prompt")
        public var wrongPasscode = StringTable.text("passcodeInput.wrongPasscode")
        /// `%@` is the sensor's name: said before the passcode is asked.
        public var biometricsChanged = StringTable.text("passcodeInput.biometricsChanged")
        public var triesLeft = StringTable.text("passcodeInput.triesLeft")
        public var lastTry = StringTable.text("passcodeInput.lastTry")
        public var reset = StringTable.text("passcodeInput.reset")
        public var cancel = StringTable.text("passcodeInput.cancel")
        /// `%@` is the sensor's name (``PasscodeInputScreen/biometricName``).
        public var useBiometrics = StringTable.text("passcodeInput.useBiometrics")
        public var switchUser = StringTable.text("passcodeInput.switchUser")
        public var addUser = StringTable.text("passcodeInput.addUser")
        public var empty = StringTable.text("passcodeInput.empty")
        public init() {}
    }

    public var kind: ScreenKind { .passcodeInput }
    /// Texts, replaceable by the app.
    public var strings: Strings
    /// Wrong passcodes left before the data is erased, when a limit applies.
    public let triesLeft: Int?
    /// Whether the previous passcode was wrong (the field starts empty either way).
    public let afterWrongPasscode: Bool
    /// Whether biometric unlock is on, so the renderer offers it first.
    public let biometricsEnabled: Bool
    /// Whether biometric unlock was just turned off because the enrolled biometrics
    /// changed: the screen says so before it asks for the passcode.
    public let biometricsChanged: Bool
    /// The name of the device's sensor in the texts ("Face ID", "your fingerprint").
    public let biometricName: String
    /// Whether "forgot passcode" shows.
    public let allowsReset: Bool
    /// Whether the screen can be dismissed.
    public let allowsCancel: Bool
    /// Whether "switch user" and "add user" show: on a shared device, at a shift change,
    /// nobody should have to quit the app.
    public let offersUserSwitch: Bool
    /// The question asked before cancelling; `nil` cancels at once.
    public let cancelConfirmation: CancelConfirmation?
    /// Whether the screen is asking ``cancelConfirmation``.
    public private(set) var isConfirmingCancel = false
    /// A message about the last input, if it was not taken.
    public private(set) var notice: String?

    public init(
        triesLeft: Int? = nil,
        afterWrongPasscode: Bool = false,
        biometricsEnabled: Bool = false,
        biometricsChanged: Bool = false,
        biometricName: String = StringTable.text("biometrics.unknown"),
        allowsReset: Bool = true,
        allowsCancel: Bool = false,
        offersUserSwitch: Bool = false,
        cancelConfirmation: CancelConfirmation? = nil,
        strings: Strings = Strings()
    ) {
        self.cancelConfirmation = cancelConfirmation
        self.biometricName = biometricName
        self.triesLeft = triesLeft
        self.afterWrongPasscode = afterWrongPasscode
        self.biometricsEnabled = biometricsEnabled
        self.biometricsChanged = biometricsChanged
        self.allowsReset = allowsReset
        self.allowsCancel = allowsCancel
        self.offersUserSwitch = offersUserSwitch
        self.strings = strings
    }

    /// The label of the biometric choice, naming the sensor.
    public var useBiometricsLabel: String { strings.useBiometrics.naming(biometricName) }

    /// The warning line under the field: biometric unlock turned off, wrong passcode and
    /// tries left.
    public var warning: String? {
        var parts: [String] = []
        if biometricsChanged { parts.append(strings.biometricsChanged.naming(biometricName)) }
        if afterWrongPasscode { parts.append(strings.wrongPasscode) }
        if let triesLeft, afterWrongPasscode || triesLeft <= 1 {
            parts.append(triesLeft == 1 ? strings.lastTry : StringTable.format(strings.triesLeft, [triesLeft]))
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    public mutating func handle(_ input: Input) -> ScreenStep<Outcome> {
        notice = nil
        let wasConfirming = isConfirmingCancel
        isConfirmingCancel = false
        switch input {
        case .enter(let passcode):
            guard !passcode.isEmpty else {
                notice = strings.empty
                return .stay
            }
            return .finish(.passcode(passcode))
        case .useBiometrics:
            return biometricsEnabled ? .finish(.biometrics) : .stay
        case .reset:
            return allowsReset ? .finish(.reset) : .stay
        case .cancel:
            guard allowsCancel else { return .stay }
            guard cancelConfirmation == nil else {
                isConfirmingCancel = true
                return .stay
            }
            return .finish(.cancelled)
        case .confirmCancel(let cancel):
            return cancel && wasConfirming ? .finish(.cancelled) : .stay
        case .switchUser:
            return offersUserSwitch ? .finish(.switchUser) : .stay
        case .addUser:
            return offersUserSwitch ? .finish(.addUser) : .stay
        }
    }
}
