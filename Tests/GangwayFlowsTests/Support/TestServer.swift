import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayStore
import Synchronization

/// Stands in for the mobile-services server until the client services exist: a step that
/// shows the sign-in screen, checks the password against its own accounts, and puts into
/// the context who signed in, the server's passcode requirement and the user's recovery
/// key, as the authentication and settings steps will.
final class TestServer: Sendable {
    struct Account: Sendable {
        var password: String
        var displayName: String
        var recoveryKey: Data
    }

    static let wrongPassword = "Wrong user name or password."

    private let accounts: [String: Account]
    private let state:
        Mutex<
            (requirement: PasscodeRequirement?, online: Bool, sendsRecoveryKeys: Bool, agreements: AgreementVersions?)
        >

    init(
        accounts: [String: Account] = TestServer.standardAccounts,
        requirement: PasscodeRequirement? = .required(.standard),
        sendsRecoveryKeys: Bool = true
    ) {
        self.accounts = accounts
        state = Mutex((requirement, true, sendsRecoveryKeys, nil))
    }

    static let standardAccounts: [String: Account] = [
        "alice": Account(password: "alice-pw", displayName: "Alice", recoveryKey: Data(repeating: 0xA1, count: 32)),
        "bob": Account(password: "bob-pw", displayName: "Bob", recoveryKey: Data(repeating: 0xB0, count: 32)),
        "carol": Account(password: "carol-pw", displayName: "Carol", recoveryKey: Data(repeating: 0xC0, count: 32)),
    ]

    /// The requirement the settings download sends (`nil`: the server has no setting).
    var requirement: PasscodeRequirement? {
        get { state.withLock { $0.requirement } }
        set { state.withLock { $0.requirement = newValue } }
    }

    /// The agreement versions the settings carry (`nil`: the server names none).
    var agreements: AgreementVersions? {
        get { state.withLock { $0.agreements } }
        set { state.withLock { $0.agreements = newValue } }
    }

    /// Whether restores reach the server for settings.
    var isOnline: Bool {
        get { state.withLock { $0.online } }
        set { state.withLock { $0.online = newValue } }
    }

    var step: any Step { SignInStep(server: self) }

    /// A token kept in the credential store after sign-in.
    static let tokenKey = "server.token"

    struct SignInStep: Step {
        let server: TestServer

        func onboard(_ context: FlowContext) async throws -> FlowContext {
            try await server.signIn(server.downloadSettings(context))
        }

        func restore(_ context: FlowContext) async throws -> FlowContext {
            server.isOnline ? server.downloadSettings(context) : context
        }

        func resetPasscode(_ context: FlowContext) async throws -> FlowContext {
            try await server.signIn(server.downloadSettings(context))
        }

        /// The quiet exchange in the background carries the agreement versions only.
        func background(_ context: FlowContext) async throws -> FlowContext {
            guard server.isOnline, let agreements = server.agreements else { return context }
            var context = context
            context.info[.agreementVersions] = agreements
            return context
        }
    }

    func downloadSettings(_ context: FlowContext) -> FlowContext {
        var context = context
        if let requirement { context.info[.passcodeRequirement] = requirement }
        if let agreements { context.info[.agreementVersions] = agreements }
        return context
    }

    func signIn(_ context: FlowContext) async throws -> FlowContext {
        var message: String?
        while true {
            let outcome = try await context.presenter.present(SignInScreen(message: message))
            guard case .credentials(let username, let password) = outcome else { throw StoreFlowError.cancelled }
            guard let account = accounts[username], account.password == password.value else {
                message = Self.wrongPassword
                continue
            }
            var context = context
            context.info[.serverUser] = ServerUser(id: username, displayName: account.displayName)
            if state.withLock({ $0.sendsRecoveryKeys }) {
                context.info[.recoveryKey] = RecoveryKey(account.recoveryKey)
            }
            try context.credentials.put(Data("token-of-\(username)".utf8), forKey: Self.tokenKey)
            return context
        }
    }
}
