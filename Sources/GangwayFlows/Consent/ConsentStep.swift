import GangwayScreens

/// Asks for a versioned consent (for example to usage analytics): during onboarding, and
/// again on a later launch when the app ships a newer version. The answer is kept in the
/// user's store; read it with ``ConsentRecord/load(topic:from:)``.
///
/// Declining a required consent stops the flow with ``ConsentError/consentDeclined``;
/// declining an optional one is recorded and not asked again until a newer version.
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

    public init(
        topic: String,
        version: Int,
        isRequired: Bool,
        pages: [ConsentScreen.Page],
        strings: ConsentScreen.Strings = ConsentScreen.Strings()
    ) {
        self.topic = topic
        self.version = version
        self.isRequired = isRequired
        self.pages = pages
        self.strings = strings
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext { try await askIfNeeded(context) }
    public func restore(_ context: FlowContext) async throws -> FlowContext { try await askIfNeeded(context) }

    private func askIfNeeded(_ context: FlowContext) async throws -> FlowContext {
        if let record = try ConsentRecord.load(topic: topic, from: context.credentials), record.version >= version,
            record.accepted || !isRequired
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
            try ConsentRecord(version: version, accepted: true).save(topic: topic, to: context.credentials)
        case .declined(let version):
            if isRequired { throw ConsentError.consentDeclined(topic) }
            try ConsentRecord(version: version, accepted: false).save(topic: topic, to: context.credentials)
        }
        return context
    }
}
