import GangwayStore

/// What a settings screen does with the open session's passcode.
extension SessionManager {
    /// Changes the passcode from a settings screen.
    /// - Returns: Whether it changed (`false` when the user cancelled).
    @discardableResult
    public func changePasscode() async throws -> Bool {
        try await perform(.changePasscode)
    }

    /// The passcode actions a settings screen may offer now.
    public func availablePasscodeActions() throws -> [PasscodeAction] {
        try storeManager.availableActions(for: openStore("availablePasscodeActions"))
    }

    /// Runs a passcode action from a settings screen. Wrong current passcodes count
    /// against the retry limit; reaching it erases the store, closes the session and
    /// forgets the user, as at unlock.
    @discardableResult
    public func perform(_ action: PasscodeAction) async throws -> Bool {
        let store = try openStore(action.rawValue)
        do {
            return try await storeManager.perform(action, on: store, presenter: presenter)
        } catch let error as SecureStoreError where error == .erased {
            if let session = machine.state.session { try await erased(session) }
            throw error
        }
    }

    private func openStore(_ call: String) throws -> SecureStore {
        guard case .open = machine.state else { throw SessionError.wrongState(call, in: machine.state) }
        guard let store = context?.secureStore else { throw SessionError.storeNotOpen(call) }
        return store
    }
}
