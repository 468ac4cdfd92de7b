import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@testable import GangwayServices

/// The one path from an error status to a ``ServiceError``, for answers no Gangway server
/// gives (a proxy's page, a status without a body); the server's own answers are covered
/// by the stories against a live server.
@Suite("Error answers become service errors in one place")
struct ServiceCallMiddlewareTests {
    func answer(
        _ status: Int,
        body: String? = nil,
        headers: HTTPFields = [:]
    ) async -> (any Error)? {
        let middleware = ServiceCallMiddleware(token: nil)
        do {
            _ = try await middleware.intercept(
                HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/x"),
                body: nil,
                baseURL: URL(string: "http://127.0.0.1")!,
                operationID: "x"
            ) { _, _, _ in
                (HTTPResponse(status: .init(code: status), headerFields: headers), body.map { HTTPBody($0) })
            }
            return nil
        } catch {
            return error
        }
    }

    @Test func theTokenIsSentAsABearerTokenAndOnlyWhenThereIsOne() async throws {
        for token in ["session-token-1", nil] {
            let seen = try await ServiceCallMiddleware(token: token).intercept(
                HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/x"),
                body: nil,
                baseURL: URL(string: "http://127.0.0.1")!,
                operationID: "x"
            ) { request, _, _ in
                (HTTPResponse(status: .ok), HTTPBody(request.headerFields[.authorization] ?? "none"))
            }
            let sent = try await String(collecting: try #require(seen.1), upTo: 100)
            #expect(sent == (token.map { "Bearer \($0)" } ?? "none"))
        }
    }

    @Test func successfulAnswersPassThrough() async {
        #expect(await answer(200, body: "{}") == nil)
        #expect(await answer(204) == nil)
    }

    @Test func theServersErrorDocumentGivesCodeMessageAndKind() async throws {
        let error = try #require(
            await answer(
                403,
                body: #"{"code": "TRAFFIC_REG_LOCKED", "message": "Locked."}"#,
                headers: [HTTPField.Name("x-message-code")!: "TRAFFIC_REG_LOCKED"]
            ) as? ServiceError
        )
        #expect(error == .registrationLocked)
        #expect(error.status == 403)
        #expect(error.serverCode == "TRAFFIC_REG_LOCKED")
    }

    @Test func aWaitComesFromRetryAfterOrTheBody() async throws {
        let header = try #require(
            await answer(429, body: #"{"code": "THROTTLED", "message": "Wait."}"#, headers: [.retryAfter: "30"])
                as? ServiceError
        )
        #expect(header == .throttled)
        #expect(header.retryAfter == .seconds(30))
        let body = try #require(
            await answer(429, body: #"{"code": "THROTTLED", "message": "Wait.", "retryAfterSeconds": 12}"#)
                as? ServiceError
        )
        #expect(body.retryAfter == .seconds(12))
    }

    @Test func anAnswerThatIsNotAnErrorDocumentKeepsItsStatus() async throws {
        let proxy = try #require(await answer(502, body: "<html>Bad gateway</html>") as? ServiceError)
        #expect(proxy == .serverFailure)
        #expect(proxy.status == 502)
        #expect(proxy.serverCode == nil)
        #expect(proxy.isTransient)
        let empty = try #require(await answer(401) as? ServiceError)
        #expect(empty == .sessionExpired)
        let huge = try #require(await answer(400, body: String(repeating: "x", count: 200_000)) as? ServiceError)
        #expect(huge == .refused)
        #expect(huge.serverMessage == nil)
    }
}
