import Foundation
import GangwayClient
import GangwayProtocol
import OpenAPIRuntime

/// The console's operators, the audit and the overview, through the admin API.
extension AdminClient {
    // MARK: Operators and the audit

    /// Every operator of the console.
    public func operators() async throws(ServiceError) -> [ManagedOperator] {
        let output = try await ServiceCall.run(at: serverURL) { try await client.listOperators() }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Adds an operator, with a one-use link to enrol.
    /// - Throws: ``ServiceError``; ``ServiceError/refused`` with status 409 when the name
    ///   is taken, 400 for a name that is not one.
    public func addOperator(
        _ name: String,
        role: OperatorRole
    ) async throws(ServiceError) -> OperatorEnrolment {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.addOperator(
                body: .json(.init(name: name, role: role.wire))
            )
        }
        switch output {
        case .created(let created): return try ServiceCall.decode { try created.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// A new one-use link for the operator to set a new password and second factor.
    /// - Throws: ``ServiceError``; ``ServiceError/notFound`` for an unknown operator.
    public func enrolOperator(_ name: String) async throws(ServiceError) -> OperatorEnrolment {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.enrolOperator(path: .init(name: name))
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Changes an operator's role.
    @discardableResult
    public func setRole(
        _ role: OperatorRole,
        operator name: String
    ) async throws(ServiceError) -> ManagedOperator {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.updateOperator(
                path: .init(name: name),
                body: .json(.init(role: role.wire))
            )
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Removes an operator; their console sessions end.
    public func removeOperator(_ name: String) async throws(ServiceError) {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.removeOperator(path: .init(name: name))
        }
        switch output {
        case .noContent: return
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// The newest events of the audit, newest first; with `before`, those before that event.
    public func auditEvents(limit: Int? = nil, before: Int64? = nil) async throws(ServiceError) -> [AuditEvent] {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.listAuditEvents(query: .init(limit: limit, before: before))
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    // MARK: The overview

    /// What happened over `period`, of `app` or of every app.
    /// - Throws: ``ServiceError``; ``ServiceError/notFound`` for an unknown app.
    public func activity(
        _ period: ActivityReport.Period = .week,
        app: String? = nil
    ) async throws(ServiceError) -> ActivityReport {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.getActivity(query: .init(period: .init(rawValue: period.rawValue), app: app))
        }
        switch output {
        case .ok(let ok): return ActivityReport(try ServiceCall.decode { try ok.body.json })
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// What needs an operator now, of `app` or of every app.
    /// - Throws: ``ServiceError``; ``ServiceError/notFound`` for an unknown app.
    public func attention(app: String? = nil) async throws(ServiceError) -> AttentionReport {
        let output = try await ServiceCall.run(at: serverURL) { try await client.getAttention(query: .init(app: app)) }
        switch output {
        case .ok(let ok): return AttentionReport(try ServiceCall.decode { try ok.body.json })
        default: throw ServiceCall.unexpected(output)
        }
    }
}
