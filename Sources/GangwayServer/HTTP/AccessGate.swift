import Foundation
import GangwayProtocol
import HTTPTypes
import OpenAPIRuntime

/// Checks who is asking before an operation reads its input, with the one check
/// (``AccessPolicy``): a caller without the right token learns nothing from how the server
/// judges a body or a path (401 before any 400 or 404). A token is looked up as the
/// operation needs: as the admin token for one that needs a role, as a session's for a
/// device's (whose handler then checks it against the app the path names). An OAuth
/// operation is refused in OAuth's words (RFC 6750 §3.1).
///
/// For the admin API's operations (those that need a role) it then checks their bodies
/// for keys the document does not name, at any depth (``DocumentedFields``), and records
/// in the audit each one that changed something: who (the admin token), what (the
/// operation), to what (the path), when and from where; a read is not recorded, nor a
/// request the server refused.
struct AccessGate: ServerMiddleware {
    let policy: AccessPolicy
    let fields: DocumentedFields
    /// The operations tagged `OAuth`, which answer in OAuth's error format.
    let oauthOperations: Set<String>
    /// Who the request's bearer token makes its sender, for an operation of this access
    /// (``APIServices/principal(for:)``).
    let principal: @Sendable (OperationAccess?) async throws(APIError) -> Principal
    /// Records a change: the operation, and the request's path.
    let audit: @Sendable (_ operationID: String, _ path: String?) async -> Void

    init(
        document: Data,
        policy: AccessPolicy,
        principal: @escaping @Sendable (OperationAccess?) async throws(APIError) -> Principal,
        audit: @escaping @Sendable (_ operationID: String, _ path: String?) async -> Void
    ) throws {
        guard let root = try JSONSerialization.jsonObject(with: document) as? [String: Any] else {
            throw CocoaError(.coderReadCorrupt)
        }
        self.policy = policy
        let paths = root["paths"] as? [String: [String: Any]] ?? [:]
        oauthOperations = Set(
            paths.values.flatMap(\.values).compactMap { value in
                guard let operation = value as? [String: Any], let tags = operation["tags"] as? [String],
                    tags.contains("OAuth")
                else { return nil }
                return operation["operationId"] as? String
            }
        )
        fields = DocumentedFields(document: root, operations: policy.roleOperations)
        self.principal = principal
        self.audit = audit
    }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let access = policy.table[operationID]
        let caller = try await principal(access)
        do {
            try policy.check(caller, for: operationID)
        } catch {
            // An OAuth operation refuses in OAuth's words.
            guard oauthOperations.contains(operationID), error.status == .unauthorized else { throw error }
            throw OAuthError.invalidToken
        }
        guard case .role = access else { return try await next(request, body, metadata) }
        var body = body
        if let collected = body, fields.bodies[operationID] != nil {
            // Collected already, within its limit, by the gateway: read again from memory.
            let data = try await Data(collecting: collected, upTo: GatewayMiddleware.maximumBodySize)
            if let unknown = fields.unknownField(in: data, operationID: operationID) {
                throw APIError.unknownField(
                    at: TextRules.shown(unknown, limit: 128)
                )
            }
            body = HTTPBody(data)
        }
        let answer = try await next(request, body, metadata)
        if ![.get, .head].contains(request.method), answer.0.status.code < 400 {
            await audit(operationID, request.path.map { String($0.prefix { $0 != "?" }) })
        }
        return answer
    }
}
