import Foundation
import GangwayPolicy
import GangwayStore
import Logging

/// The step that gives each user their secure store: created during onboarding (passcode
/// create screens), opened on restore (passcode input screens, then any policy change an
/// earlier launch left unfinished), replaced or recovered on a passcode reset, destroyed
/// on reset. Once the store is open, what earlier steps kept in memory moves into it and
/// the context's credential store is the secure store.
public struct StoreStep: Step {
    /// The manager that does the work.
    public let manager: StoreManager

    public init(manager: StoreManager) {
        self.manager = manager
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext {
        let id = context.onboardingID
        let store: SecureStore
        if manager.options.restoreIfStoreExists, manager.location(for: id).exists {
            store = try await manager.openStore(for: id, presenter: context.presenter)
        } else {
            store = try await manager.createStore(
                for: id,
                requirement: context.info[.passcodeRequirement],
                presenter: context.presenter
            )
        }
        return try adopt(store, into: context)
    }

    /// The passcode typed to open the store goes on to a policy change in the same flow
    /// (an unfinished one here, a new one in ``PasscodePolicyApplyStep``), so a forced
    /// change asks only for the new passcode; the flow forgets it when it ends.
    public func restore(_ context: FlowContext) async throws -> FlowContext {
        let (store, typed) = try await manager.openStoreVerifying(
            for: context.onboardingID,
            presenter: context.presenter
        )
        var context = try adopt(store, into: context)
        do {
            let ran = try await manager.resumePendingPolicyChange(
                on: store,
                presenter: context.presenter,
                verifiedCurrent: typed
            )
            // A change that ran may have replaced the passcode: the typed one is then stale.
            context.info[.unlockPasscode] = ran.isEmpty ? typed : nil
        } catch {
            store.close()
            throw error
        }
        return context
    }

    /// Sets a new passcode for a user who forgot theirs. With the recovery key the server
    /// released after the same user signed in again, the store is opened by it and its
    /// data kept; without one the data cannot be reached, so the store is replaced by a
    /// new, empty one.
    public func resetPasscode(_ context: FlowContext) async throws -> FlowContext {
        let id = context.onboardingID
        let location = manager.location(for: id)
        if let recovery = context.info[.recoveryKey], location.exists {
            do {
                let store = try location.unlock(recoveryKey: recovery.secret)
                do {
                    let policy =
                        manager.effectiveRequirement(context.info[.passcodeRequirement]).policy ?? store.policy
                        ?? .standard
                    let passcodeSet = try await manager.setNewPasscode(
                        on: store,
                        policy: policy,
                        presenter: context.presenter
                    )
                    // Skipped under a policy that allows it: the forgotten passcode must not stay.
                    if !passcodeSet, store.isPasscodeProtected { try store.removePasscode() }
                    return try adopt(store, into: context)
                } catch {
                    store.close()
                    throw error
                }
            } catch let error as SecureStoreError where error == .recoveryNotSet || error == .recoveryKeyRejected {
                manager.logger.warning(
                    "the recovery key does not open the store; its data cannot be kept",
                    metadata: ["store": "\(location.directory.lastPathComponent)"]
                )
            }
        }
        try location.destroy()
        let store = try await manager.createStore(
            for: id,
            requirement: context.info[.passcodeRequirement],
            presenter: context.presenter
        )
        return try adopt(store, into: context)
    }

    /// Closes and destroys the user's store.
    public func reset(_ context: FlowContext) async {
        context.secureStore?.close()
        do {
            try manager.location(for: context.onboardingID).destroy()
        } catch {
            manager.logger.warning("cannot destroy a store on reset", metadata: ["error": "\(error)"])
        }
    }

    /// Puts the store in the context: sets the recovery key the server gave, and moves
    /// what earlier steps kept in memory into the store.
    private func adopt(_ store: SecureStore, into context: FlowContext) throws -> FlowContext {
        var context = context
        do {
            if let recovery = context.info[.recoveryKey] { try store.setRecoveryKey(recovery.secret) }
            if context.secureStore !== store { try context.credentials.moveEntries(to: store) }
        } catch {
            store.close()
            throw error
        }
        context.credentials = store
        return context
    }
}
