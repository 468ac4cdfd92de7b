import Foundation
import GangwayClient
import GangwayProtocol
import HTTPTypes
import OpenAPIRuntime
import Synchronization

/// Holds the admin token back until the server proved it holds the token's hash.
///
/// The middleware nearest the transport, after the one that adds the `Authorization`
/// header: before the first call of an ``AdminClient`` leaves, it sends a fresh challenge
/// to `POST /admin/proof`, a request of its own without the token, and checks the answer
/// (``GangwayProtocol/AdminProof``). Only then does the call, with its header, go out; a process that took the port a server used to listen on gets the
/// challenge and nothing else, and the call fails with ``ServiceError/serverNotProven``.
/// The proof is asked once per client.
final class AdminServerCheck: ClientMiddleware {
    private let token: String
    private let proven = Mutex(false)

    init(token: String) {
        self.token = token
    }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: ServiceCallMiddleware.Next
    ) async throws -> (HTTPResponse, HTTPBody?) {
        if !proven.withLock({ $0 }) {
            try await prove(baseURL: baseURL, next: next)
            proven.withLock { $0 = true }
        }
        return try await next(request, body, baseURL)
    }

    private func prove(baseURL: URL, next: ServiceCallMiddleware.Next) async throws {
        let challenge = AdminProof.challenge()
        let request = HTTPRequest(
            method: .post,
            scheme: nil,
            authority: nil,
            path: "/admin/proof",
            headerFields: [.contentType: "application/json", .accept: "application/json"]
        )
        let json = try JSONEncoder().encode(Components.Schemas.AdminChallenge(challenge: challenge))
        let (response, responseBody) = try await next(request, HTTPBody(json), baseURL)
        guard response.status == .ok, let responseBody,
            let bytes = try? await Data(collecting: responseBody, upTo: 4096),
            let answer = try? JSONDecoder().decode(Components.Schemas.AdminProof.self, from: bytes),
            AdminProof.verify(answer.proof, challenge: challenge, token: token)
        else { throw ServiceError.serverNotProven }
    }
}
