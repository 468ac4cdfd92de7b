import Foundation
import GangwayScreens

/// Shows the licence agreement during onboarding, and again at a later launch or unlock
/// when another version is due: the server's (``AgreementVersions/eula``, from the
/// settings download) or, when the server names none, the app's own. The accepted version
/// is kept in the user's store; declining stops the flow with ``ConsentError/eulaDeclined``
/// (at a launch or an unlock the session does not open, and the data stays).
public struct EULAStep: Step {
    /// The app's version of the agreement, due when the server names none.
    public let version: String
    /// The agreement's text.
    public let text: String
    /// The screen's texts.
    public var strings: EULAScreen.Strings

    static let acceptedKey = "gangway.eula.acceptedVersion"
    /// The version the server asked for last, kept for launches without the server.
    static let dueKey = "gangway.eula.serverVersion"

    public init(version: String, text: String, strings: EULAScreen.Strings = EULAScreen.Strings()) {
        self.version = version
        self.text = text
        self.strings = strings
    }

    /// The version the user accepted last, if any.
    public static func acceptedVersion(in credentials: any CredentialStore) throws -> String? {
        try credentials.data(forKey: acceptedKey).map { String(decoding: $0, as: UTF8.self) }
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext { try await askIfNeeded(context) }
    public func restore(_ context: FlowContext) async throws -> FlowContext { try await askIfNeeded(context) }
    public func unlock(_ context: FlowContext) async throws -> FlowContext { try await askIfNeeded(context) }

    /// The version the person must have accepted now.
    func dueVersion(_ context: FlowContext) throws -> String {
        if let server = context.info[.agreementVersions]?.eula {
            try context.credentials.put(Data(server.utf8), forKey: Self.dueKey)
            return server
        }
        return try context.credentials.data(forKey: Self.dueKey).map { String(decoding: $0, as: UTF8.self) }
            ?? version
    }

    private func askIfNeeded(_ context: FlowContext) async throws -> FlowContext {
        let due = try dueVersion(context)
        if try Self.acceptedVersion(in: context.credentials) == due { return context }
        switch try await context.presenter.present(EULAScreen(version: due, text: text, strings: strings)) {
        case .accepted(let version):
            try context.credentials.put(Data(version.utf8), forKey: Self.acceptedKey)
            return context
        case .declined:
            throw ConsentError.eulaDeclined
        }
    }
}
