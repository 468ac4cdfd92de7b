import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The admin's links between people of an OpenID Connect provider and users
/// (`gangway admin users link`): a provider's subject is one user at most.
extension MobileServicesAPI {
    func listIdentityLinks(
        _ input: Operations.ListIdentityLinks.Input
    ) async throws -> Operations.ListIdentityLinks.Output {
        let user = try await user(input.path.username)
        let links = try await perform { try await storage.identityLinks(username: user.username) }
        return .ok(.init(body: .json(links.map(Self.wire))))
    }

    func linkIdentity(_ input: Operations.LinkIdentity.Input) async throws -> Operations.LinkIdentity.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let user = try await user(input.path.username)
        guard IssuerURL.isValid(body.issuer) else { throw APIError.badRequest(IssuerURL.rule, code: .invalidField) }
        try Validation.text(body.subject, "subject", APILimits.subject)
        let link = IdentityLinkRecord(
            issuer: body.issuer,
            subject: body.subject,
            username: user.username,
            createdAt: now()
        )
        do {
            try await storage.insertIdentityLink(link)
        } catch {
            guard error.code == .duplicate else { throw APIError.storage(error) }
            let holder = try await perform {
                try await storage.identityLink(issuer: body.issuer, subject: body.subject)
            }
            throw APIError(
                .conflict,
                .identityLinked,
                holder?.username == user.username
                    ? "This identity is linked to \(user.username) already."
                    : "This identity is linked to another user; unlink it there first."
            )
        }
        logger.notice("identity linked", metadata: ["user": "\(user.username)", "issuer": "\(body.issuer)"])
        return .created(.init(body: .json(Self.wire(link))))
    }

    func unlinkIdentity(_ input: Operations.UnlinkIdentity.Input) async throws -> Operations.UnlinkIdentity.Output {
        let user = try await user(input.path.username)
        guard Self.couldBeLinked(issuer: input.query.issuer, subject: input.query.subject),
            try await perform({
                try await storage.deleteIdentityLink(
                    issuer: input.query.issuer,
                    subject: input.query.subject,
                    username: user.username
                )
            })
        else {
            throw APIError.notFound(.identityNotLinked, "This identity is not linked to \(user.username).")
        }
        logger.notice("identity unlinked", metadata: ["user": "\(user.username)", "issuer": "\(input.query.issuer)"])
        return .noContent(.init())
    }

    /// Whether an identity could have been linked: one with a control character never was
    /// (linking refuses one), and one PostgreSQL cannot even hold needs no lookup.
    static func couldBeLinked(issuer: String, subject: String) -> Bool {
        !Validation.hasControlCharacters(issuer) && !Validation.hasControlCharacters(subject)
    }

    static func wire(_ link: IdentityLinkRecord) -> Components.Schemas.IdentityLink {
        .init(issuer: link.issuer, subject: link.subject, username: link.username, createdAt: link.createdAt)
    }
}
