import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The links of a provider's identity (issuer and subject) to a user or an operator:
/// one path for both holders.
struct IdentityLinksHandler: APIHandler {
    let services: APIServices

    func linkOperatorIdentity(
        _ input: Operations.LinkOperatorIdentity.Input
    ) async throws -> Operations.LinkOperatorIdentity.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let record = try await operators.operatorRecord(input.path.name)
        let link = try await link(issuer: body.issuer, subject: body.subject, to: .operator(record.name))
        return .created(.init(body: .json(Self.wire(link))))
    }

    func unlinkOperatorIdentity(
        _ input: Operations.UnlinkOperatorIdentity.Input
    ) async throws -> Operations.UnlinkOperatorIdentity.Output {
        let record = try await operators.operatorRecord(input.path.name)
        try await unlink(issuer: input.query.issuer, subject: input.query.subject, from: .operator(record.name))
        return .noContent(.init())
    }

    func listIdentityLinks(
        _ input: Operations.ListIdentityLinks.Input
    ) async throws -> Operations.ListIdentityLinks.Output {
        let user = try await users.user(input.path.username)
        let links = try await perform { try await storage.identityLinks(.user, named: [user.username]) }
        return .ok(.init(body: .json(links.map(Self.wire))))
    }

    func linkIdentity(_ input: Operations.LinkIdentity.Input) async throws -> Operations.LinkIdentity.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let user = try await users.user(input.path.username)
        let link = try await link(issuer: body.issuer, subject: body.subject, to: .user(user.username))
        return .created(.init(body: .json(Self.wire(link))))
    }

    func unlinkIdentity(_ input: Operations.UnlinkIdentity.Input) async throws -> Operations.UnlinkIdentity.Output {
        let user = try await users.user(input.path.username)
        try await unlink(issuer: input.query.issuer, subject: input.query.subject, from: .user(user.username))
        return .noContent(.init())
    }

    /// Links a provider's person to `holder`, who exists: the issuer and subject checked,
    /// a second link of the same kind refused (409, saying whether it is this holder's).
    func link(issuer: String, subject: String, to holder: IdentityHolder) async throws -> IdentityLinkRecord {
        guard IssuerURL.isValid(issuer) else { throw APIError.badRequest(IssuerURL.rule, code: .invalidField) }
        try Validation.text(subject, "subject", APILimits.subject)
        let link = IdentityLinkRecord(issuer: issuer, subject: subject, holder: holder, createdAt: now())
        do {
            try await storage.insertIdentityLink(link)
        } catch {
            guard error.code == .duplicate else { throw APIError.storage(error) }
            let linked = try await perform {
                try await storage.identityLink(issuer: issuer, subject: subject, kind: holder.kind)
            }
            throw APIError(
                .conflict,
                .identityLinked,
                linked?.holder == holder
                    ? "This identity is linked to \(holder.name) already."
                    : "This identity is linked to another \(holder.kind.rawValue); unlink it there first."
            )
        }
        logger.notice("identity linked", metadata: [holder.kind.rawValue: "\(holder.name)", "issuer": "\(issuer)"])
        return link
    }

    /// Removes the link of a provider's person to `holder`, who exists; 404 when there is
    /// none.
    func unlink(issuer: String, subject: String, from holder: IdentityHolder) async throws {
        guard Self.couldBeLinked(issuer: issuer, subject: subject),
            try await perform({ try await storage.deleteIdentityLink(issuer: issuer, subject: subject, holder: holder) }
            )
        else {
            throw APIError.notFound(.identityNotLinked, "This identity is not linked to \(holder.name).")
        }
        logger.notice("identity unlinked", metadata: [holder.kind.rawValue: "\(holder.name)", "issuer": "\(issuer)"])
    }

    /// Whether an identity could have been linked: one with a control character never was
    /// (linking refuses one), and one PostgreSQL cannot even hold needs no lookup.
    static func couldBeLinked(issuer: String, subject: String) -> Bool {
        !Validation.hasControlCharacters(issuer) && !Validation.hasControlCharacters(subject)
    }

    static func wire(_ link: IdentityLinkRecord) -> Components.Schemas.IdentityLink {
        .init(issuer: link.issuer, subject: link.subject, username: link.holder.name, createdAt: link.createdAt)
    }

    static func wire(_ link: IdentityLinkRecord) -> Components.Schemas.OperatorIdentity {
        .init(issuer: link.issuer, subject: link.subject, createdAt: link.createdAt)
    }
}
