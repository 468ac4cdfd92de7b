import Foundation
import GangwayProtocol
import HTTPTypes
import OpenAPIRuntime

/// Checks the admin token before an admin operation reads its input: a caller without
/// it learns nothing from how the server judges a body or a path (401 before any 400 or
/// 404). Then records in the audit each operation that changed something: who (the admin
/// token), what (the operation), to what (the path), when and from where; a read is not
/// recorded, nor a request the server refused.
///
/// The operations are those the API document secures with `admin`, read from the
/// document itself, so a new admin route is covered the day it is written. Their bodies
/// are checked for keys the document does not name, at any depth (``DocumentedFields``).
struct AdminGate: ServerMiddleware {
    let operations: Set<String>
    let fields: DocumentedFields
    let requireAdmin: @Sendable () async throws(APIError) -> Void
    /// Records a change: the operation, and the request's path.
    let audit: @Sendable (_ operationID: String, _ path: String?) async -> Void

    init(
        document: Data,
        requireAdmin: @escaping @Sendable () async throws(APIError) -> Void,
        audit: @escaping @Sendable (_ operationID: String, _ path: String?) async -> Void
    ) throws {
        guard let root = try JSONSerialization.jsonObject(with: document) as? [String: Any],
            let paths = root["paths"] as? [String: [String: Any]]
        else { throw CocoaError(.coderReadCorrupt) }
        var operations: Set<String> = []
        for operation in paths.values.flatMap(\.values) {
            guard let operation = operation as? [String: Any], let id = operation["operationId"] as? String,
                let security = operation["security"] as? [[String: Any]],
                security.contains(where: { $0["admin"] != nil })
            else { continue }
            operations.insert(id)
        }
        self.operations = operations
        fields = DocumentedFields(document: root, operations: operations)
        self.requireAdmin = requireAdmin
        self.audit = audit
    }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard operations.contains(operationID) else { return try await next(request, body, metadata) }
        try await requireAdmin()
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
