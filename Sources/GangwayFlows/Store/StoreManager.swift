import Foundation
import GangwayPolicy
import GangwayScreens
import GangwayStore
import Logging

/// Creates, opens, unlocks and changes users' secure stores, showing the passcode screens
/// through the presenter: the part of onboarding that turns a passcode into a key.
///
/// ``StoreStep`` runs it in flows, ``PasscodePolicyApplyStep`` applies a server policy,
/// and the ``SessionManager`` uses it to unlock on return and to change the passcode
/// from settings.
public struct StoreManager: Sendable {
    /// How stores are set up.
    public struct Options: Sendable {
        /// The app's own policy. It applies whether or not the server assigns one: a
        /// server's policy can make its rules stricter (``GangwayPolicy/PasscodePolicy/combined(with:)``),
        /// but a server that assigns none, or turns its policy off, leaves it in force.
        /// `nil` means the server alone decides, and no passcode when it assigns none
        /// (less secure, as in the reference SDK; shared devices never allow it).
        public var defaultPolicy: PasscodePolicy?
        /// One store for every user instead of one per onboarding ID.
        public var storeID: UUID?
        /// During onboarding, open a store that already exists instead of failing.
        public var restoreIfStoreExists: Bool
        /// Never ask for a passcode: stores are protected by the device key alone.
        /// Ignored on a shared device.
        public var noPasscode: Bool
        /// Several people share the device: a passcode is always required, biometrics
        /// are off, and the passcode cannot be turned off.
        public var isSharedDevice: Bool
        /// Whether the passcode screen at launch offers cancel.
        public var allowsCancel: Bool
        /// Whether cancelling a passcode screen asks first (``Strings/cancelUnlock``,
        /// ``Strings/cancelChange``).
        public var confirmsCancel: Bool
        /// Whether the passcode screen offers "forgot passcode". An app that cannot let a
        /// person reset their own passcode (no sign-in to prove who they are) hides it.
        public var offersPasscodeReset: Bool
        /// The app's own check on every new passcode, after the policy's rules: return a
        /// message to refuse a passcode, `nil` to take it. It runs on the create and
        /// change screens, at onboarding, in the settings and in forced changes.
        public var validatePasscode: (@Sendable (Secret) -> String?)?
        /// The reason shown by the system's biometric prompt.
        public var biometricReason: String
        /// Whether every change of the passcode rules, looser as well as stricter, makes
        /// the person choose a new passcode, as the reference SDK does. Off by default: a
        /// change is forced only when the passcode just typed breaks the new rules; rules
        /// it still meets are announced, and a change is offered, not forced.
        public var changesPasscodeAtEveryNewRule: Bool

        public init(
            defaultPolicy: PasscodePolicy? = nil,
            storeID: UUID? = nil,
            restoreIfStoreExists: Bool = false,
            noPasscode: Bool = false,
            isSharedDevice: Bool = false,
            allowsCancel: Bool = false,
            confirmsCancel: Bool = true,
            offersPasscodeReset: Bool = true,
            validatePasscode: (@Sendable (Secret) -> String?)? = nil,
            biometricReason: String = StringTable.text("store.biometricReason"),
            changesPasscodeAtEveryNewRule: Bool = false
        ) {
            self.changesPasscodeAtEveryNewRule = changesPasscodeAtEveryNewRule
            self.confirmsCancel = confirmsCancel
            self.offersPasscodeReset = offersPasscodeReset
            self.validatePasscode = validatePasscode
            self.defaultPolicy = defaultPolicy
            self.storeID = storeID
            self.restoreIfStoreExists = restoreIfStoreExists
            self.noPasscode = noPasscode
            self.isSharedDevice = isSharedDevice
            self.allowsCancel = allowsCancel
            self.biometricReason = biometricReason
        }
    }

    /// The texts of the screens the manager shows.
    public struct Strings: Sendable, Hashable {
        public var create = PasscodeCreateScreen.Strings()
        public var input = PasscodeInputScreen.Strings()
        public var change = PasscodeChangeScreen.Strings()
        public var feedback = FeedbackScreen.PolicyStrings()
        public var error = ErrorScreen.Strings()
        /// Shown while a lockout delay runs; `%d` is the seconds to wait.
        public var tryAgainLater = StringTable.text("store.tryAgainLater")
        /// Announces that the passcode expired, before a new one is chosen; in the detail,
        /// `%d` is the days a passcode lasts.
        public var passcodeExpired = FeedbackScreen.Texts(
            title: StringTable.text("store.passcodeExpired.title"),
            headline: StringTable.text("store.passcodeExpired.headline"),
            detail: StringTable.text("store.passcodeExpired.detail")
        )
        /// Above the field when choosing the passcode that replaces an expired one.
        public var passcodeExpiredReason = StringTable.text("store.passcodeExpiredReason")
        /// The name of each kind of biometric sensor, put where a text says `%@`: the
        /// biometric opt-in, the passcode screen's choice, the policy announcements.
        public var biometricNames: [BiometricKind: String] = Dictionary(
            uniqueKeysWithValues: BiometricKind.allCases.map { ($0, StringTable.text("biometrics.\($0.rawValue)")) }
        )
        /// The name when the device has no sensor that can be used now.
        public var unknownBiometricName = StringTable.text("biometrics.unknown")
        /// After a passcode unlock, when biometric unlock was turned off because the
        /// biometrics enrolled on the device changed: why, and whether to turn it on again.
        /// `%@` is the sensor's name.
        public var biometricsChanged = FeedbackScreen.Texts(
            title: StringTable.text("store.biometricsChanged.title"),
            headline: StringTable.text("store.biometricsChanged.headline"),
            detail: StringTable.text("store.biometricsChanged.detail"),
            button: StringTable.text("store.biometricsChanged.turnOn"),
            secondaryButton: StringTable.text("store.biometricsChanged.notNow")
        )
        /// The same news when biometric unlock cannot be turned on again now (the policy
        /// no longer allows it, or no biometric is enrolled).
        public var biometricsChangedFinal = FeedbackScreen.Texts(
            title: StringTable.text("store.biometricsChanged.title"),
            headline: StringTable.text("store.biometricsChanged.headline"),
            detail: StringTable.text("store.biometricsChangedFinal.detail")
        )
        /// Asked before the passcode screen at launch is cancelled.
        public var cancelUnlock = CancelConfirmation(
            message: StringTable.text("store.cancelUnlock.message")
        )
        /// Asked before a passcode change is cancelled.
        public var cancelChange = CancelConfirmation(
            message: StringTable.text("store.cancelChange.message")
        )
        /// When the passcode chosen to replace an expired one was used before.
        public var passcodeUsedBefore = StringTable.text("store.passcodeUsedBefore")
        public init() {}
    }

    /// Where the stores live.
    public let root: SecureStoreRoot
    /// How stores are set up.
    public let options: Options
    /// The texts of the screens.
    public var strings: Strings

    public init(root: SecureStoreRoot, options: Options = Options(), strings: Strings = Strings()) {
        self.root = root
        self.options = options
        self.strings = strings
    }

    var logger: Logger { root.environment.logger }

    /// The ID of the store of user `onboardingID`.
    public func storeID(for onboardingID: UUID) -> UUID { options.storeID ?? onboardingID }

    /// The location of the store of user `onboardingID`.
    public func location(for onboardingID: UUID) -> SecureStoreLocation {
        root.location(for: storeID(for: onboardingID))
    }

    /// The name of the device's biometric sensor in the texts (``Strings/biometricNames``).
    public var biometricName: String {
        guard case .available(let kind) = root.environment.biometrics.availability else {
            return strings.unknownBiometricName
        }
        return strings.biometricNames[kind] ?? strings.unknownBiometricName
    }

    /// Whether the device can unlock with biometrics now and the setup allows them.
    public var biometricsUsable: Bool {
        guard !options.isSharedDevice, case .available = root.environment.biometrics.availability else {
            return false
        }
        return true
    }

    /// What a store must have, given what the server said (`nil`: nothing). The app's
    /// default policy is a floor under the server's; shared devices always require a
    /// passcode and never allow biometrics or skipping it.
    public func effectiveRequirement(_ server: PasscodeRequirement?) -> PasscodeRequirement {
        if options.noPasscode, !options.isSharedDevice { return .notRequired }
        var requirement = server ?? .notRequired
        if let app = options.defaultPolicy {
            requirement = .required(requirement.policy?.combined(with: app) ?? app)
        }
        guard options.isSharedDevice else { return requirement }
        var policy = requirement.policy ?? .standard
        policy.allowsBiometrics = false
        policy.allowsSkip = false
        return .required(policy)
    }

    // MARK: Create

    /// Creates the store of user `onboardingID`: shows the passcode create screen when a
    /// passcode is required (with the biometric opt-in when allowed and available), or
    /// creates it in no-passcode mode.
    public func createStore(
        for onboardingID: UUID,
        requirement server: PasscodeRequirement?,
        presenter: any Presenter
    ) async throws -> SecureStore {
        let location = location(for: onboardingID)
        guard case .required(let policy) = effectiveRequirement(server) else {
            return try location.create(protection: .noPasscode)
        }
        let screen = PasscodeCreateScreen(
            policy: policy,
            biometricsAvailable: biometricsUsable,
            biometricName: biometricName,
            strings: strings.create,
            validate: options.validatePasscode ?? { _ in nil }
        )
        switch try await presenter.present(screen) {
        case .skipped:
            return try location.create(protection: .noPasscode)
        case .created(let passcode, let biometrics):
            let store = try location.create(protection: .passcode(passcode), policy: policy)
            if biometrics { await enableBiometrics(on: store) }
            return store
        }
    }

    /// Turns biometric unlock on after the user opted in; a failure leaves the passcode
    /// working and is logged, since the user can turn it on later from settings.
    func enableBiometrics(on store: SecureStore) async {
        do {
            try await store.enableBiometricUnlock(reason: options.biometricReason)
        } catch {
            logger.notice("biometric unlock not turned on", metadata: ["store": "\(store.id)", "error": "\(error)"])
        }
    }

    // MARK: Open and unlock

    /// Opens the store of user `onboardingID`: with biometrics first when they are on,
    /// then the passcode screen with the tries left, until the passcode is right.
    ///
    /// - Throws: ``GangwayStore/SecureStoreError/erased`` when the retry limit erased the
    ///   store, ``StoreFlowError/passcodeResetRequested`` when the user chose "forgot
    ///   passcode", ``StoreFlowError/switchUserRequested`` and
    ///   ``StoreFlowError/addUserRequested`` (a shared device), ``StoreFlowError/cancelled``,
    ///   ``StoreFlowError/storeNotFound``.
    public func openStore(for onboardingID: UUID, presenter: any Presenter) async throws -> SecureStore {
        try await openStoreVerifying(for: onboardingID, presenter: presenter).store
    }

    /// ``openStore(for:presenter:)``, also returning the passcode the person typed (not
    /// when the biometric or no passcode opened it), for a policy change that must follow
    /// in the same flow without asking it again.
    func openStoreVerifying(
        for onboardingID: UUID,
        presenter: any Presenter
    ) async throws -> (store: SecureStore, typed: Secret?) {
        let location = location(for: onboardingID)
        guard location.exists else { throw StoreFlowError.storeNotFound }
        let info = try location.info()
        guard info.isPasscodeProtected else { return (try location.unlockWithoutPasscode(), nil) }
        let (store, typed): (SecureStore, Secret?) = try await askPasscode(
            presenter: presenter,
            triesLeft: info.triesLeft,
            biometricsEnabled: info.isBiometricUnlockEnabled,
            allowsReset: options.offersPasscodeReset,
            allowsCancel: options.allowsCancel,
            offersUserSwitch: options.isSharedDevice,
            cancelConfirmation: options.confirmsCancel ? strings.cancelUnlock : nil,
            check: { passcode throws(SecureStoreError) in (try location.unlock(passcode: passcode), passcode) },
            biometrics: { (try await location.unlockWithBiometrics(reason: options.biometricReason), nil) },
            afterBiometricsInvalidated: { store, _ in
                do {
                    try await offerBiometricsAgain(on: store, presenter: presenter)
                } catch {
                    store.close()
                    throw error
                }
            }
        )
        do {
            let renewed = try await renewIfExpired(store, presenter: presenter)
            return (store, renewed ? nil : typed)
        } catch {
            store.close()
            throw error
        }
    }

    /// Unlocks an open store when the app comes back past the lock timeout: the same
    /// screens as ``openStore(for:presenter:)``, checked against the open store.
    /// - Returns: The passcode the person typed, when they unlocked with one (not with
    ///   the biometric), for a change the policy forces right after
    ///   (``resumePendingPolicyChange(on:presenter:verifiedCurrent:)``).
    @discardableResult
    public func unlock(_ store: SecureStore, presenter: any Presenter) async throws -> Secret? {
        guard store.isPasscodeProtected else { return nil }
        let info = try store.location.info()
        let typed: Secret? = try await askPasscode(
            presenter: presenter,
            triesLeft: info.triesLeft,
            biometricsEnabled: store.isBiometricUnlockEnabled,
            allowsReset: options.offersPasscodeReset,
            allowsCancel: false,
            offersUserSwitch: options.isSharedDevice,
            check: { passcode throws(SecureStoreError) in
                try store.verifyPasscode(passcode)
                return passcode
            },
            biometrics: {
                try await store.verifyBiometrics(reason: options.biometricReason)
                return nil
            },
            afterBiometricsInvalidated: { _ in try await offerBiometricsAgain(on: store, presenter: presenter) }
        )
        let renewed = try await renewIfExpired(store, presenter: presenter)
        return renewed ? nil : typed
    }

    /// After a passcode unlock that followed a biometric attempt refused because the
    /// enrolled biometrics changed: says that biometric unlock was turned off and why,
    /// and turns it on again (with the sensor's new enrollment) when the person asks and
    /// the policy still allows it. A failure to turn it on is logged; the passcode works.
    func offerBiometricsAgain(on store: SecureStore, presenter: any Presenter) async throws {
        let canTurnOn = biometricsUsable && (store.policy?.allowsBiometrics ?? false)
        let texts = (canTurnOn ? strings.biometricsChanged : strings.biometricsChangedFinal).naming(biometricName)
        let answer = try await presenter.present(FeedbackScreen(texts: texts))
        guard canTurnOn, answer == .acknowledged else { return }
        await enableBiometrics(on: store)
    }

    /// After an unlock: when the passcode is older than the policy's expiry allows, the
    /// feedback screen says so and the person chooses a new passcode, one they have not
    /// used before, without a way to skip it. Until then the store is not handed over;
    /// an app killed on these screens asks again at the next unlock.
    /// - Returns: Whether the passcode was replaced (a passcode typed before is then no
    ///   longer the current one).
    @discardableResult
    func renewIfExpired(_ store: SecureStore, presenter: any Presenter) async throws -> Bool {
        guard store.isPasscodeExpired, let policy = store.policy, let days = policy.expiresAfterDays else {
            return false
        }
        logger.notice("the passcode expired; a new one is required", metadata: ["store": "\(store.id)"])
        var texts = strings.passcodeExpired
        texts.detail = StringTable.format(texts.detail, [days])
        _ = try await presenter.present(FeedbackScreen(texts: texts))
        try await setNewPasscode(
            on: store,
            policy: policy,
            offerBiometrics: false,
            reason: strings.passcodeExpiredReason,
            replacingCurrent: true,
            presenter: presenter
        )
        return true
    }

    /// The passcode screen's loop: biometrics first when on, then the passcode until it
    /// is right, the retry limit erases the store, or the user resets or cancels.
    func askPasscode<Result>(
        presenter: any Presenter,
        triesLeft: Int?,
        biometricsEnabled: Bool,
        allowsReset: Bool = true,
        allowsCancel: Bool,
        offersUserSwitch: Bool = false,
        cancelConfirmation: CancelConfirmation? = nil,
        check: (Secret) throws(SecureStoreError) -> Result,
        biometrics: () async throws -> Result,
        afterBiometricsInvalidated: (Result) async throws -> Void = { _ in }
    ) async throws -> Result {
        var triesLeft = triesLeft
        var afterWrong = false
        var biometricsEnabled = biometricsEnabled
        // Set when the enrollment changed: said after the passcode, with a store to act on.
        var invalidated = false
        if biometricsEnabled,
            let result = try await tryBiometrics(biometrics, enabled: &biometricsEnabled, invalidated: &invalidated)
        {
            return result
        }
        while true {
            let screen = PasscodeInputScreen(
                triesLeft: triesLeft,
                afterWrongPasscode: afterWrong,
                biometricsEnabled: biometricsEnabled,
                biometricsChanged: invalidated,
                biometricName: biometricName,
                allowsReset: allowsReset,
                allowsCancel: allowsCancel,
                offersUserSwitch: offersUserSwitch,
                cancelConfirmation: cancelConfirmation,
                strings: strings.input
            )
            switch try await presenter.present(screen) {
            case .passcode(let passcode):
                switch Self.attempt(check, passcode) {
                case .success(let result):
                    if invalidated { try await afterBiometricsInvalidated(result) }
                    return result
                case .failure(let error) where error == .wrongPasscode:
                    triesLeft = error.triesLeft
                    afterWrong = true
                case .failure(let error) where error == .tryAgainLater:
                    let (whole, fraction) = (error.retryAfter ?? .seconds(1)).components
                    let seconds = max(1, Int(whole) + (fraction > 0 ? 1 : 0))
                    let message = StringTable.format(strings.tryAgainLater, [seconds])
                    let answer = try await presenter.present(
                        ErrorScreen(message: message, allowsRetry: true, strings: strings.error)
                    )
                    if answer == .cancel { throw StoreFlowError.cancelled }
                    afterWrong = false
                case .failure(let error):
                    throw error
                }
            case .biometrics:
                if let result = try await tryBiometrics(
                    biometrics,
                    enabled: &biometricsEnabled,
                    invalidated: &invalidated
                ) {
                    return result
                }
            case .reset:
                throw StoreFlowError.passcodeResetRequested
            case .cancelled:
                throw StoreFlowError.cancelled
            case .switchUser:
                throw StoreFlowError.switchUserRequested
            case .addUser:
                throw StoreFlowError.addUserRequested
            }
        }
    }

    private static func attempt<Result>(
        _ check: (Secret) throws(SecureStoreError) -> Result,
        _ passcode: Secret
    ) -> Swift.Result<Result, SecureStoreError> {
        do {
            return .success(try check(passcode))
        } catch {
            return .failure(error)
        }
    }

    /// One biometric attempt; `nil` (and the passcode screen) when it does not pass.
    private func tryBiometrics<Result>(
        _ attempt: () async throws -> Result,
        enabled: inout Bool,
        invalidated: inout Bool
    ) async throws -> Result? {
        do {
            return try await attempt()
        } catch let error as SecureStoreError where error == .biometricsInvalidated || error == .biometricsNotEnabled {
            enabled = false
            if error == .biometricsInvalidated { invalidated = true }
            return nil
        } catch let error as SecureStoreError where error == .biometricsFailed || error == .biometricsUnavailable {
            return nil
        }
    }
}
