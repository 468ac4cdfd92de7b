import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The console's operators (`gangway admin operators`) and the audit of what they and
/// the admin token did (`gangway admin audit`).
extension MobileServicesAPI {
    func listOperators(_ input: Operations.ListOperators.Input) async throws -> Operations.ListOperators.Output {
        let operators = try await perform { try await storage.operatorRecords() }
        let identities = Dictionary(
            grouping: try await perform { try await storage.identityLinks(.operator) },
            by: \.holder.name
        )
        return .ok(.init(body: .json(operators.map { Self.wire($0, identities: identities[$0.name] ?? []) })))
    }

    func addOperator(_ input: Operations.AddOperator.Input) async throws -> Operations.AddOperator.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        try Self.checkOperatorName(body.name)
        let role = OperatorRole(body.role)
        let enrolment = Self.newEnrolmentToken()
        let record = OperatorRecord(
            name: body.name,
            role: role,
            enrolmentHash: enrolment.hash,
            enrolmentExpiresAt: now().addingTimeInterval(Self.enrolmentLifetime),
            createdAt: now()
        )
        do {
            try await storage.insertOperator(record)
        } catch {
            guard error.code == .duplicate else { throw APIError.storage(error) }
            throw APIError(.conflict, .operatorExists, "An operator named \(body.name) exists.")
        }
        AuditNote.current?.target = "/admin/operators/\(record.name)"
        AuditNote.current?.add("role: \(role.rawValue)")
        logger.notice("operator added", metadata: ["operator": "\(record.name)", "role": "\(role.rawValue)"])
        return .created(.init(body: .json(enrolmentAnswer(record, token: enrolment.token))))
    }

    func enrolOperator(_ input: Operations.EnrolOperator.Input) async throws -> Operations.EnrolOperator.Output {
        let name = input.path.name
        let enrolment = Self.newEnrolmentToken()
        let expiresAt = now().addingTimeInterval(Self.enrolmentLifetime)
        guard
            try await perform({
                try await storage.startEnrolment(of: name, enrolmentHash: enrolment.hash, expiresAt: expiresAt)
            }), let record = try await perform({ try await storage.operatorRecord(named: name) })
        else { throw APIError.notFound(.operatorNotFound, "There is no operator named \(name).") }
        logger.notice("operator enrolment started", metadata: ["operator": "\(name)"])
        return .ok(.init(body: .json(enrolmentAnswer(record, token: enrolment.token))))
    }

    func updateOperator(_ input: Operations.UpdateOperator.Input) async throws -> Operations.UpdateOperator.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let role = OperatorRole(body.role)
        let old = try await perform { try await storage.operatorRecord(named: input.path.name) }
        guard let record = try await perform({ try await storage.updateOperator(named: input.path.name, role: role) })
        else { throw APIError.notFound(.operatorNotFound, "There is no operator named \(input.path.name).") }
        if let old { AuditNote.current?.change("role", from: old.role.rawValue, to: record.role.rawValue) }
        logger.notice("operator role changed", metadata: ["operator": "\(record.name)", "role": "\(role.rawValue)"])
        return .ok(.init(body: .json(Self.wire(record))))
    }

    func removeOperator(_ input: Operations.RemoveOperator.Input) async throws -> Operations.RemoveOperator.Output {
        guard try await perform({ try await storage.deleteOperator(named: input.path.name) }) else {
            throw APIError.notFound(.operatorNotFound, "There is no operator named \(input.path.name).")
        }
        logger.notice("operator removed", metadata: ["operator": "\(input.path.name)"])
        return .noContent(.init())
    }

    func linkOperatorIdentity(
        _ input: Operations.LinkOperatorIdentity.Input
    ) async throws -> Operations.LinkOperatorIdentity.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let record = try await operatorRecord(input.path.name)
        let link = try await link(issuer: body.issuer, subject: body.subject, to: .operator(record.name))
        return .created(.init(body: .json(Self.wire(link))))
    }

    func unlinkOperatorIdentity(
        _ input: Operations.UnlinkOperatorIdentity.Input
    ) async throws -> Operations.UnlinkOperatorIdentity.Output {
        let record = try await operatorRecord(input.path.name)
        try await unlink(issuer: input.query.issuer, subject: input.query.subject, from: .operator(record.name))
        return .noContent(.init())
    }

    /// The operator named `name`; 404 when there is none.
    func operatorRecord(_ name: String) async throws -> OperatorRecord {
        guard let record = try await perform({ try await storage.operatorRecord(named: name) }) else {
            throw APIError.notFound(.operatorNotFound, "There is no operator named \(name).")
        }
        return record
    }

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

    // MARK: Enrolment

    /// How long an enrolment link works.
    static let enrolmentLifetime: TimeInterval = 24 * 60 * 60

    /// A new enrolment link's token, and the hash it is stored as.
    static func newEnrolmentToken() -> (token: String, hash: Data) {
        let token = randomBytes(32).base64URLEncoded
        return (token, BearerToken.hash(token))
    }

    /// Where an enrolment link's token is used.
    func enrolmentURL(token: String) -> String {
        consoleURL(ConsolePaths.enrol + "?token=" + token)
    }

    /// The console's page at `path`, at the console's own address when it has one.
    func consoleURL(_ path: String) -> String {
        (settings.consoleURL ?? settings.publicURL).value + path
    }

    /// The TOTP secret of the enrolment whose link has `hash`: derived from the server
    /// key, so the page that shows it and the form that confirms it agree without keeping
    /// it anywhere until the operator proves their app holds it.
    func enrolmentSecret(_ hash: Data) -> Data {
        Data(keys.server.authenticationCode(for: hash, purpose: "operator-totp-enrolment").prefix(20))
    }

    private func enrolmentAnswer(_ record: OperatorRecord, token: String) -> Components.Schemas.OperatorEnrolment {
        .init(
            _operator: Self.wire(record),
            enrolmentURL: enrolmentURL(token: token),
            expiresAt: record.enrolmentExpiresAt ?? now()
        )
    }

    static func checkOperatorName(_ name: String) throws(APIError) {
        if let problem = IdentifierRule.operatorName.problem(name) {
            throw APIError.badRequest("name \(problem).", code: .invalidField)
        }
    }

    static func wire(_ record: OperatorRecord, identities: [IdentityLinkRecord] = []) -> Components.Schemas.Operator {
        .init(
            name: record.name,
            role: record.role.wire,
            enrolled: record.isEnrolled,
            createdAt: record.createdAt,
            identities: identities.isEmpty ? nil : identities.map(Self.wire)
        )
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

extension MobileServicesAPI {
    /// Appends an event to the audit, at the request's client address, with what the
    /// handler noted (``AuditNote``): what it changed, and what it created when the
    /// request's path does not name it. The action was
    /// done already: a failure to record it is logged, as an error.
    func audit(actor: String, via: AuditEventRecord.Channel, action: String, target: String?) async {
        let event = AuditEventRecord(
            at: now(),
            actor: actor,
            via: via,
            action: action,
            target: RequestInfo.current.auditNote?.target ?? target,
            address: RequestInfo.current.clientAddress(trusting: settings.trustedProxies),
            detail: RequestInfo.current.auditNote?.detail
        )
        do {
            try await storage.appendAuditEvent(event)
        } catch {
            logger.error(
                "an action could not be recorded in the audit",
                metadata: ["action": "\(action)", "error": "\(error.code)"]
            )
        }
    }
}
