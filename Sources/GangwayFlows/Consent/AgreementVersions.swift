/// The versions of the licence agreement and of the consent the server asks users to
/// accept. The settings download puts them in the flow's context; ``EULAStep`` and a
/// ``ConsentStep`` that follows the server ask again when the person accepted another.
public struct AgreementVersions: Sendable, Hashable, Codable {
    /// The licence agreement's version; `nil`: the app's own.
    public var eula: String?
    /// The consent's version; `nil`: the app's own.
    public var consent: String?

    public init(eula: String? = nil, consent: String? = nil) {
        self.eula = eula
        self.consent = consent
    }
}

extension FlowInfoKey where Value == AgreementVersions {
    /// What the server's settings ask users to accept; absent when no settings were
    /// downloaded (the steps then keep the versions the app ships).
    public static var agreementVersions: Self { Self("gangway.agreementVersions") }
}
