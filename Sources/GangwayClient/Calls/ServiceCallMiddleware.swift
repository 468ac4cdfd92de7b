package import Foundation
internal import GangwayProtocol
import HTTPTypes
package import OpenAPIRuntime

/// What every call of both clients goes through: it sends `Authorization: Bearer` with
/// the session's or the admin's token, when there is one, and turns every error answer
/// (status 400 or more) into a ``ServiceError`` before the generated client reads it, the
/// one place where statuses become errors.
///
/// The server's stable code and message come from the document's error body (or an
/// OAuth endpoint's `error` and `error_description`, RFC 6749 §5.2), the
/// registration's state from `x-message-code`, a wait from `Retry-After` (or the body's
/// `retryAfterSeconds`). An answer whose body is not an error document keeps its status
/// and gets no code.
package struct ServiceCallMiddleware: ClientMiddleware {
    /// The largest error body read; the server's are a few hundred bytes.
    static let bodyLimit = 64 * 1024

    package typealias Next = @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)

    /// The bearer token sent with every call, if any.
    let token: String?

    package init(token: String?) {
        self.token = token
    }

    package func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: Next
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token { request.headerFields[.authorization] = "Bearer \(token)" }
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code >= 400 else { return (response, responseBody) }
        var document: ErrorDocument?
        var oauth: OAuthErrorDocument?
        if let responseBody, let bytes = try? await Data(collecting: responseBody, upTo: Self.bodyLimit) {
            document = try? JSONDecoder().decode(ErrorDocument.self, from: bytes)
            if document == nil { oauth = try? JSONDecoder().decode(OAuthErrorDocument.self, from: bytes) }
        }
        let header = response.headerFields[HTTPField.Name("Retry-After")!].flatMap { Int($0) }
        let seconds = header ?? document?.retryAfterSeconds
        throw ServiceError.answer(
            status: response.status.code,
            code: document?.code ?? oauth?.error,
            message: document?.message ?? oauth?.errorDescription,
            messageCode: response.headerFields[HTTPField.Name("x-message-code")!],
            retryAfter: seconds.map { .seconds(max(0, $0)) }
        )
    }
}
