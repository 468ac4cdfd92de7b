import Foundation
import GangwayScreens

/// Shows the licence agreement during onboarding, and again on a later launch when the
/// app ships another version of it. The accepted version is kept in the user's store;
/// declining stops the flow with ``ConsentError/eulaDeclined``.
public struct EULAStep: Step {
    /// The agreement's version; any other version than the accepted one is asked again.
    public let version: String
    /// The agreement's text.
    public let text: String
    /// The screen's texts.
    public var strings: EULAScreen.Strings

    static let acceptedKey = "gangway.eula.acceptedVersion"

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

    private func askIfNeeded(_ context: FlowContext) async throws -> FlowContext {
        if try Self.acceptedVersion(in: context.credentials) == version { return context }
        switch try await context.presenter.present(EULAScreen(version: version, text: text, strings: strings)) {
        case .accepted(let version):
            try context.credentials.put(Data(version.utf8), forKey: Self.acceptedKey)
            return context
        case .declined:
            throw ConsentError.eulaDeclined
        }
    }
}
