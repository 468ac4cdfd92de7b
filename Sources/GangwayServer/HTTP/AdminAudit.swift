import Foundation
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Records every change made through the admin API in the audit: who (the admin token),
/// what (the operation), to what (the path), when and from where. A read is not recorded,
/// nor a request the server refused.
///
/// The operations are ``AdminGate``'s, read from the API document.
struct AdminAudit: ServerMiddleware {
    let operations: Set<String>
    let api: MobileServicesAPI

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let answer = try await next(request, body, metadata)
        guard operations.contains(operationID), ![.get, .head].contains(request.method),
            answer.0.status.code < 400
        else { return answer }
        await api.audit(
            actor: AuditEventRecord.adminToken,
            via: .api,
            action: operationID,
            target: request.path.map { String($0.prefix { $0 != "?" }) }
        )
        return answer
    }
}

extension AuditEventRecord {
    /// The actor of what the admin token did.
    static let adminToken = "admin token"
}

extension MobileServicesAPI {
    /// Appends an event to the audit, at the request's client address. The action was
    /// done already: a failure to record it is logged, as an error.
    func audit(actor: String, via: AuditEventRecord.Channel, action: String, target: String?) async {
        let event = AuditEventRecord(
            at: now(),
            actor: actor,
            via: via,
            action: action,
            target: target,
            address: RequestInfo.current.clientAddress(trusting: settings.trustedProxies)
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
