import Foundation
import GangwayPolicy
import GangwayScreens
import GangwayStore
import Logging

/// Applying a new passcode policy from the server to an open store.
extension StoreManager {
    /// The entry that records a policy change before it starts.
    static let pendingPolicyKey = "gangway.pendingPolicyChange"

    /// The transitions that moving `store` to what the server now asks would take, in
    /// the order they run. Empty when only limits changed (retry limit, lock timeout,
    /// expiry), which apply without asking the user anything.
    public func transitions(for store: SecureStore, to server: PasscodeRequirement?) -> [PasscodePolicyTransition] {
        let hasPasscode = store.isPasscodeProtected
        let hasBiometrics = store.isBiometricUnlockEnabled
        switch effectiveRequirement(server) {
        case .notRequired:
            guard hasPasscode else { return [] }
            return [hasBiometrics ? .biometricsToNone : .passcodeToNone]
        case .required(let policy):
            guard hasPasscode else {
                // A user who skipped the passcode under a policy that allows it keeps that choice.
                if policy.allowsSkip { return [] }
                return [policy.allowsBiometrics && biometricsUsable ? .noneToPasscodeWithBiometrics : .noneToPasscode]
            }
            let current = store.policy ?? .standard
            var result: [PasscodePolicyTransition] = []
            if hasBiometrics && !policy.allowsBiometrics { result.append(.biometricsToPasscodeOnly) }
            if !current.hasSameRules(as: policy) { result.append(.passcodeToPasscode) }
            if !hasBiometrics && policy.allowsBiometrics && !current.allowsBiometrics && biometricsUsable {
                result.append(.passcodeToPasscodeWithBiometricsOffered)
            }
            // effectiveRequirement never allows skipping on a shared device.
            if policy.allowsSkip && !current.allowsSkip { result.append(.passcodeToPasscodeWithSkipOffered) }
            return result
        }
    }

    /// Moves `store` to what the server now asks: each transition is announced by its
    /// feedback screen, then run (a forced passcode change cannot be cancelled). The
    /// change is recorded in the store before anything else, so a crash or a killed app
    /// resumes it at the next launch (``resumePendingPolicyChange(on:presenter:)``). A
    /// passcode older than a new expiry allows is then replaced, as at an unlock.
    ///
    /// - Returns: The transitions that ran.
    @discardableResult
    ///   - verifiedCurrent: The passcode the person unlocked with a moment ago, if they
    ///     did: a forced change then asks only for the new one.
    public func applyPolicy(
        _ server: PasscodeRequirement?,
        to store: SecureStore,
        presenter: any Presenter,
        verifiedCurrent: Secret? = nil
    ) async throws -> [PasscodePolicyTransition] {
        let requirement = effectiveRequirement(server)
        let planned = transitions(for: store, to: requirement)
        if !planned.isEmpty {
            try store.encode(requirement, forKey: Self.pendingPolicyKey)
            logger.notice(
                "passcode policy change started",
                metadata: ["store": "\(store.id)", "transitions": "\(planned.map(\.rawValue))"]
            )
            for transition in planned {
                try await run(
                    transition,
                    policy: requirement.policy,
                    on: store,
                    presenter: presenter,
                    verifiedCurrent: verifiedCurrent
                )
            }
        }
        // Recorded last: until the rules are in the store, a resumed change still sees
        // that the passcode has to change.
        if let policy = requirement.policy, store.isPasscodeProtected, store.policy != policy {
            try store.updatePolicy(policy)
        }
        if !planned.isEmpty {
            try store.removeValue(forKey: Self.pendingPolicyKey)
            logger.notice("passcode policy change finished", metadata: ["store": "\(store.id)"])
        }
        // A new expiry the passcode is already past: replaced now, not at the next unlock.
        try await renewIfExpired(store, presenter: presenter)
        return planned
    }

    /// Records what the server now asks of `store` for the next unlock, without asking the
    /// user anything: for a settings exchange made while the app is in the background.
    /// Changes of limits only (retry limit, lock timeout, expiry) apply at once; a change
    /// that needs the user is kept in the store, and the next return to the foreground
    /// asks for the passcode and runs it (see ``SessionManager/enterForeground()``), as
    /// does the next launch.
    ///
    /// - Returns: The transitions that wait for the user; empty when none do.
    @discardableResult
    public func deferPolicy(_ server: PasscodeRequirement?, to store: SecureStore) throws -> [PasscodePolicyTransition]
    {
        let requirement = effectiveRequirement(server)
        let planned = transitions(for: store, to: requirement)
        guard planned.isEmpty else {
            try store.encode(requirement, forKey: Self.pendingPolicyKey)
            logger.notice(
                "passcode policy change waits for the next unlock",
                metadata: ["store": "\(store.id)", "transitions": "\(planned.map(\.rawValue))"]
            )
            return planned
        }
        if let policy = requirement.policy, store.isPasscodeProtected, store.policy != policy {
            try store.updatePolicy(policy)
        }
        return []
    }

    /// Whether a policy change waits in `store` for the user (recorded by
    /// ``deferPolicy(_:to:)``, or left by a launch that ended during the change).
    public func hasPendingPolicyChange(_ store: SecureStore) throws -> Bool {
        try store.data(forKey: Self.pendingPolicyKey) != nil
    }

    /// Finishes a policy change that an earlier launch recorded and did not finish.
    ///
    /// - Returns: The transitions that ran; empty when nothing was pending.
    @discardableResult
    public func resumePendingPolicyChange(
        on store: SecureStore,
        presenter: any Presenter,
        verifiedCurrent: Secret? = nil
    ) async throws -> [PasscodePolicyTransition] {
        guard let pending = try store.decode(PasscodeRequirement.self, forKey: Self.pendingPolicyKey) else {
            return []
        }
        logger.notice("resuming an unfinished passcode policy change", metadata: ["store": "\(store.id)"])
        let ran = try await applyPolicy(pending, to: store, presenter: presenter, verifiedCurrent: verifiedCurrent)
        // Already done before the crash: nothing ran, but the record must go.
        _ = try store.removeValue(forKey: Self.pendingPolicyKey)
        return ran
    }

    private func run(
        _ transition: PasscodePolicyTransition,
        policy: PasscodePolicy?,
        on store: SecureStore,
        presenter: any Presenter,
        verifiedCurrent: Secret?
    ) async throws {
        // New rules the passcode just typed meets: announced, the passcode kept, and a
        // change offered rather than forced (unless the app asks for the reference's
        // change at every new rule).
        if transition == .passcodeToPasscode, !options.changesPasscodeAtEveryNewRule, let current = verifiedCurrent,
            let policy, policy.evaluate(current).isAcceptable, options.validatePasscode?(current) == nil
        {
            logger.notice("new passcode rules the passcode meets: kept", metadata: ["store": "\(store.id)"])
            let answer = try await presenter.present(FeedbackScreen(keepingPasscode: strings.feedback))
            if answer == .declined {
                _ = try await changePasscode(
                    of: store,
                    policy: policy,
                    allowsCancel: true,
                    verifiedCurrent: current,
                    presenter: presenter
                )
            }
            return
        }
        let ruleChange = policy.map { (store.policy ?? .standard).ruleChange(to: $0) } ?? .unchanged
        _ = try await presenter.present(
            FeedbackScreen(
                announcing: transition,
                ruleChange: ruleChange,
                strings: strings.feedback,
                biometricName: biometricName
            )
        )
        switch transition {
        case .noneToPasscode, .noneToPasscodeWithBiometrics:
            _ = try await setNewPasscode(
                on: store,
                policy: policy ?? .standard,
                offerBiometrics: transition == .noneToPasscodeWithBiometrics,
                presenter: presenter
            )
        case .passcodeToPasscode:
            _ = try await changePasscode(
                of: store,
                policy: policy,
                allowsCancel: false,
                verifiedCurrent: verifiedCurrent,
                presenter: presenter
            )
        case .passcodeToNone, .biometricsToNone:
            try store.removePasscode()
        case .biometricsToPasscodeOnly:
            try store.disableBiometricUnlock()
        case .passcodeToPasscodeWithBiometricsOffered, .passcodeToPasscodeWithSkipOffered:
            // Nothing to do now: the new policy is recorded at the end, and the settings
            // screen's actions then offer biometric unlock, or turning the passcode off.
            break
        }
    }
}
