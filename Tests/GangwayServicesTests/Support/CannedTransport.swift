import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization

/// A transport that answers every request with one status, content type and body (what
/// no Gangway server sends: a proxy's or a newer server's answer), and keeps the
/// requests it was sent.
final class CannedTransport: ClientTransport, Sendable {
    let status: Int
    let contentType: String
    let body: String
    let sent = Mutex<[HTTPRequest]>([])

    init(status: Int, contentType: String = "application/json", body: String) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    func send(
        _ request: HTTPRequest,
        body _: HTTPBody?,
        baseURL _: URL,
        operationID _: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        sent.withLock { $0.append(request) }
        return (HTTPResponse(status: .init(code: status), headerFields: [.contentType: contentType]), HTTPBody(body))
    }
}
