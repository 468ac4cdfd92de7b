import Foundation
import GangwayConsole
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The console's operators (`gangway admin operators`): added with a role, enrolled by a
/// one-use link, given another role, and removed.
struct OperatorsHandler: APIHandler {
    let services: APIServices

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

    /// The operator named `name`; 404 when there is none.
    func operatorRecord(_ name: String) async throws -> OperatorRecord {
        guard let record = try await perform({ try await storage.operatorRecord(named: name) }) else {
            throw APIError.notFound(.operatorNotFound, "There is no operator named \(name).")
        }
        return record
    }

    // MARK: Enrolment

    /// How long an enrolment link works.
    static let enrolmentLifetime: TimeInterval = 24 * 60 * 60

    /// A new enrolment link's token, and the hash it is stored as.
    static func newEnrolmentToken() -> (token: String, hash: Data) {
        let token = BearerToken.random()
        return (token, BearerToken.hash(token))
    }

    /// Where an enrolment link's token is used.
    func enrolmentURL(token: String) -> String {
        services.consoleURL(ConsolePaths.enrol + "?token=" + token)
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
            identities: identities.isEmpty ? nil : identities.map(IdentityLinksHandler.wire)
        )
    }
}
