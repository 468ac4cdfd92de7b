import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The audit of what operators and the admin token did (`gangway admin audit`).
struct AuditHandler: APIHandler {
    let services: APIServices

    func listAuditEvents(
        _ input: Operations.ListAuditEvents.Input
    ) async throws -> Operations.ListAuditEvents.Output {
        let limit = try Validation.listLimit(input.query.limit)
        if let before = input.query.before, before < 1 {
            throw APIError.badRequest("before is the id of an event: 1 or more.", code: .invalidField)
        }
        let query = input.query
        let bounds = [("actor", query.actor, APILimits.username), ("action", query.action, APILimits.identifier)]
        for (name, text, range) in bounds {
            guard let text else { continue }
            guard text.unicodeScalars.count > 0, range.contains(text.unicodeScalars.count) else {
                throw APIError.badRequest("\(name) is 1 to \(range.upperBound) characters.", code: .invalidField)
            }
        }
        // No operator's name or action holds a control character (and PostgreSQL text
        // cannot hold a NUL): such a filter matches nothing.
        if bounds.contains(where: { Validation.hasControlCharacters($0.1 ?? "") }) {
            return .ok(.init(body: .json([])))
        }
        let events = try await perform {
            try await storage.auditEvents(limit: limit, before: query.before, actor: query.actor, action: query.action)
        }
        return .ok(.init(body: .json(events.map(Self.wire))))
    }

    static func wire(_ event: AuditEventRecord) -> Components.Schemas.AuditEvent {
        .init(
            id: event.id ?? 0,
            at: event.at,
            actor: event.actor,
            via: event.via == .console ? .console : .api,
            action: event.action,
            target: event.target,
            address: event.address,
            detail: event.detail
        )
    }
}

extension AuditEventRecord {
    /// The actor of what the admin token did.
    static let adminToken = "admin token"
}
