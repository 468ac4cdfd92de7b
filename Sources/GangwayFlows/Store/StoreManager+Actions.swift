import Foundation
import GangwayPolicy
import GangwayScreens
import GangwayStore
import Logging

/// Setting and changing the passcode of an open store, and the settings screen's actions.
extension StoreManager {
    /// Shows the passcode create screen and sets the passcode on an open store (one in
    /// no-passcode mode, or one opened by its recovery key).
    ///
    /// - Parameter replacingCurrent: The new passcode replaces one that may not stay (it
    ///   expired): it must differ from the current one even when the policy keeps no
    ///   history, and it cannot be skipped.
    /// - Returns: Whether a passcode was set (`false` when the user skipped).
    @discardableResult
    public func setNewPasscode(
        on store: SecureStore,
        policy: PasscodePolicy,
        offerBiometrics: Bool = true,
        reason: String? = nil,
        replacingCurrent: Bool = false,
        presenter: any Presenter
    ) async throws -> Bool {
        let rejected = strings.change.rejected
        let reused = strings.passcodeUsedBefore
        var shown = policy
        var withHistory = policy
        if replacingCurrent {
            shown.allowsSkip = false
            // The store always keeps the current passcode's fingerprint.
            withHistory.historyCount = max(1, policy.historyCount)
        }
        let checked = withHistory
        let appCheck = options.validatePasscode
        let screen = PasscodeCreateScreen(
            policy: shown,
            biometricsAvailable: offerBiometrics && biometricsUsable,
            biometricName: biometricName,
            reason: reason,
            strings: strings.create,
            // The screen checks the policy's rules; the store also knows the history.
            validate: { passcode in
                guard let failed = try? store.evaluateNewPasscode(passcode, policy: checked).failedRules,
                    !failed.isEmpty
                else { return appCheck?(passcode) }
                return replacingCurrent && failed.contains(.notRecentlyUsed(checked.historyCount)) ? reused : rejected
            }
        )
        switch try await presenter.present(screen) {
        case .skipped:
            return false
        case .created(let passcode, let biometrics):
            try store.setPasscode(passcode, policy: policy)
            if biometrics { await enableBiometrics(on: store) }
            return true
        }
    }

    /// Shows the passcode change screen until the current passcode is right and the new
    /// one is taken. Biometric unlock stays as it was.
    ///
    /// - Parameters:
    ///   - policy: The rules for the new passcode: the store's own when `nil`; a new
    ///     server policy during a forced change.
    ///   - allowsCancel: `false` when the change is forced.
    /// - Returns: Whether the passcode changed (`false` when the user cancelled).
    /// - Throws: ``GangwayStore/SecureStoreError/erased`` when wrong current passcodes
    ///   reached the retry limit.
    @discardableResult
    public func changePasscode(
        of store: SecureStore,
        policy: PasscodePolicy? = nil,
        allowsCancel: Bool = true,
        verifiedCurrent: Secret? = nil,
        presenter: any Presenter
    ) async throws -> Bool {
        let policy = policy ?? store.policy ?? options.defaultPolicy ?? .standard
        var afterWrongCurrent = false
        var reason: String?
        while true {
            let screen = PasscodeChangeScreen(
                policy: policy,
                allowsCancel: allowsCancel,
                reason: reason,
                afterWrongCurrent: afterWrongCurrent,
                triesLeft: try store.location.info().triesLeft,
                cancelConfirmation: options.confirmsCancel ? strings.cancelChange : nil,
                strings: strings.change,
                validate: options.validatePasscode ?? { _ in nil },
                verifiedCurrent: verifiedCurrent
            )
            let outcome = try await presenter.present(screen)
            guard case .changed(let current, let new) = outcome else { return false }
            switch try Self.attemptChange(of: store, current: current, new: new, policy: policy) {
            case .changed:
                break
            case .wrongCurrent:
                afterWrongCurrent = true
                reason = nil
                continue
            case .rejected:
                // Only the store knows the history: a recently used passcode ends here.
                afterWrongCurrent = false
                reason = strings.change.rejected
                continue
            }
            logger.info("passcode changed", metadata: ["store": "\(store.id)"])
            return true
        }
    }

    private enum ChangeAttempt { case changed, wrongCurrent, rejected }

    private static func attemptChange(
        of store: SecureStore,
        current: Secret,
        new: Secret,
        policy: PasscodePolicy
    ) throws(SecureStoreError) -> ChangeAttempt {
        do {
            try store.verifyPasscode(current)
        } catch {
            guard error == .wrongPasscode else { throw error }
            return .wrongCurrent
        }
        do {
            try store.setPasscode(new, policy: policy)
        } catch {
            guard error == .passcodeRejected else { throw error }
            return .rejected
        }
        return .changed
    }

    /// What a settings screen may offer for `store`, given its policy and the device.
    public func availableActions(for store: SecureStore) -> [PasscodeAction] {
        guard store.isPasscodeProtected else { return options.isSharedDevice ? [] : [.createPasscode] }
        var actions: [PasscodeAction] = [.changePasscode]
        let policy = store.policy ?? .standard
        if policy.allowsSkip && !options.isSharedDevice { actions.append(.turnOffPasscode) }
        if store.isBiometricUnlockEnabled {
            actions.append(.disableBiometrics)
        } else if policy.allowsBiometrics && biometricsUsable {
            actions.append(.enableBiometrics)
        }
        return actions
    }

    /// Runs a settings action on `store`, with its screens (no feedback screen: the user
    /// asked for it).
    ///
    /// - Returns: Whether the store changed (`false` when the user cancelled).
    /// - Throws: ``StoreFlowError/actionNotAvailable`` when the action is not among
    ///   ``availableActions(for:)``.
    @discardableResult
    public func perform(_ action: PasscodeAction, on store: SecureStore, presenter: any Presenter) async throws -> Bool
    {
        guard availableActions(for: store).contains(action) else { throw StoreFlowError.actionNotAvailable(action) }
        switch action {
        case .createPasscode:
            let policy = store.policy ?? options.defaultPolicy ?? .standard
            return try await setNewPasscode(on: store, policy: policy, presenter: presenter)
        case .changePasscode:
            return try await changePasscode(of: store, presenter: presenter)
        case .turnOffPasscode:
            do {
                try await askPasscode(
                    presenter: presenter,
                    triesLeft: try store.location.info().triesLeft,
                    biometricsEnabled: false,
                    allowsReset: false,
                    allowsCancel: true,
                    check: { passcode throws(SecureStoreError) in try store.verifyPasscode(passcode) },
                    biometrics: {}
                )
            } catch let error as StoreFlowError where error == .cancelled {
                return false
            }
            try store.removePasscode()
            return true
        case .enableBiometrics:
            try await store.enableBiometricUnlock(reason: options.biometricReason)
            return true
        case .disableBiometrics:
            try store.disableBiometricUnlock()
            return true
        }
    }
}
