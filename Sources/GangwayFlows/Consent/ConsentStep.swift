import Foundation
import GangwayScreens

/// Asks for a versioned consent (for example to usage analytics): during onboarding, and
/// again at a later launch or unlock when the app ships a newer version or, for the
/// consent that ``followsServer``, when the server asks for another version
/// (``AgreementVersions/consent``). The answer is kept in the user's store; read it with
/// ``ConsentRecord/load(topic:from:)``.
///
/// Declining a required consent stops the flow with ``ConsentError/consentDeclined`` (at a
/// launch or an unlock the session does not open, and the data stays); declining an
/// optional one is recorded and not asked again until a newer version.
public struct ConsentStep: Step {
    /// What the consent is about; names the record, so keep it stable.
    public let topic: String
    /// The consent's version; a higher one is asked again.
    public let version: Int
    /// Whether the app cannot be used without it.
    public let isRequired: Bool
    /// The pages shown.
    public let pages: [ConsentScreen.Page]
    /// The screen's texts.
    public var strings: ConsentScreen.Strings
    /// Whether the server's consent version (``AgreementVersions/consent``) applies to
    /// this consent: one consent of an app may follow it.
    public let followsServer: Bool

    public init(
        topic: String,
        version: Int,
        isRequired: Bool,
        pages: [ConsentScreen.Page],
        followsServer: Bool = false,
        strings: ConsentScreen.Strings = ConsentScreen.Strings()
    ) {
        self.followsServer = followsServer
        self.topic = topic
        self.version = version
        self.isRequired = isRequired
        self.pages = pages
        self.strings = strings
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext { try await askIfNeeded(context) }
    public func restore(_ context: FlowContext) async throws -> FlowContext { try await askIfNeeded(context) }
    public func unlock(_ context: FlowContext) async throws -> FlowContext { try await askIfNeeded(context) }

    /// The server's version this consent must have been answered for, if any.
    func dueServerVersion(_ context: FlowContext) throws -> String? {
        guard followsServer else { return nil }
        let key = ConsentRecord.key(for: topic) + ".serverVersion"
        if let server = context.info[.agreementVersions]?.consent {
            try context.credentials.put(Data(server.utf8), forKey: key)
            return server
        }
        return try context.credentials.data(forKey: key).map { String(decoding: $0, as: UTF8.self) }
    }

    private func askIfNeeded(_ context: FlowContext) async throws -> FlowContext {
        let server = try dueServerVersion(context)
        if let record = try ConsentRecord.load(topic: topic, from: context.credentials), record.version >= version,
            server == nil || record.serverVersion == server, record.accepted || !isRequired
        {
            return context
        }
        let screen = ConsentScreen(
            topic: topic,
            version: version,
            isRequired: isRequired,
            pages: pages,
            strings: strings
        )
        switch try await context.presenter.present(screen) {
        case .accepted(let version):
            try ConsentRecord(version: version, accepted: true, serverVersion: server)
                .save(topic: topic, to: context.credentials)
        case .declined(let version):
            if isRequired { throw ConsentError.consentDeclined(topic) }
            try ConsentRecord(version: version, accepted: false, serverVersion: server)
                .save(topic: topic, to: context.credentials)
        }
        return context
    }
}
