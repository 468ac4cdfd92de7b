import Foundation

/// One user: who they are, their status, the provider identities linked to them; an
/// operator or admin blocks or unblocks them, ends their sessions, sets a new password,
/// and links or unlinks an identity.
public struct UserPage: ConsolePage {
    public struct Identity: Sendable {
        public var issuer: String
        public var subject: String
        public var linked: String

        public init(issuer: String, subject: String, linked: String) {
            self.issuer = issuer
            self.subject = subject
            self.linked = linked
        }
    }

    public var template: String { "user" }
    public var title: String
    public var signedIn: SignedInOperator?
    /// Who they are, with the same status and first action as their row in the list.
    public var user: UsersPage.Row
    public var identities: [Identity]
    public var hasIdentities: Bool
    public var canAct: Bool
    public var formToken: String
    public var action: String
    public var error: String?
    public var notice: String?
    /// What was typed in the link form, kept after a refusal.
    public var issuer: String
    public var subject: String
    /// Their attributes as the page says them (`stands: 12, 14; teams: ramp`, or `none`),
    /// and as its form holds them: one a line, `stands=12,14`.
    public var attributesShown: String
    public var attributes: String

    public init(
        signedIn: SignedInOperator,
        username: String,
        displayName: String,
        blocked: Bool,
        added: String,
        identities: [Identity],
        canAct: Bool,
        action: String,
        error: String? = nil,
        notice: String? = nil,
        issuer: String = "",
        subject: String = "",
        attributes: [String: [String]] = [:],
        typedAttributes: String? = nil
    ) {
        title = "User \(username)"
        self.signedIn = signedIn
        user = UsersPage.Row(username: username, displayName: displayName, blocked: blocked, added: added)
        self.identities = identities
        hasIdentities = !identities.isEmpty
        self.canAct = canAct
        formToken = signedIn.formToken
        self.action = action
        self.error = error
        self.notice = notice
        self.issuer = issuer
        self.subject = subject
        let sorted = attributes.sorted { $0.key < $1.key }
        attributesShown =
            sorted.isEmpty
            ? "none" : sorted.map { "\($0.key): \($0.value.joined(separator: ", "))" }.joined(separator: "; ")
        self.attributes =
            typedAttributes
            ?? sorted.map { "\($0.key)=\($0.value.joined(separator: ","))" }
            .joined(separator: "\n")
    }

    /// The attributes the form's text sets: one a line, `NAME=VALUE,VALUE`, blank lines
    /// skipped; `nil` when a line is not of that form. The API checks the names and values.
    public static func attributes(from text: String) -> [String: [String]]? {
        var attributes: [String: [String]] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, attributes[parts[0]] == nil else { return nil }
            attributes[parts[0]] = parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
        }
        return attributes
    }
}
