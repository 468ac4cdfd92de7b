import Foundation
import GangwayServices
import HTTPTypes
import OpenAPIRuntime
import Synchronization
import Testing

/// The sync call goes around the generated client (its page is read by a scanner): it
/// must send what the generated client sends and end every answer as the other calls do.
@Suite("A sync page's call sends what the generated client sends and ends every answer as the other calls do")
struct SyncPageCallTests {
    static let page = #"""
        {"cursor":"1.2","entities":[{"fields":{"status":"open"},"id":"check-1","position":2,
        "updatedAt":"2026-12-04T06:00:00Z","updatedBy":"admin","version":1}],"entitySet":"checks","more":false,
        "removed":[{"id":"check-2","position":1}]}
        """#

    func changes(
        _ transport: CannedTransport,
        cursor: String? = nil,
        limit: Int? = nil,
        wait: Int? = nil
    ) async throws(ServiceError) -> AppDataChanges {
        try await MobileServicesClient(serverURL: URL(string: "http://127.0.0.1:9/base")!, transport: transport)
            .appDataChanges(
                appID: "checks",
                entitySet: "checks",
                cursor: cursor,
                limit: limit,
                waitingUpTo: wait,
                token: SessionToken("token-1")
            )
    }

    @Test func aPageIsReadAndTheRequestIsTheGeneratedOne() async throws {
        let transport = CannedTransport(status: 200, contentType: "application/json; charset=utf-8", body: Self.page)
        let page = try await changes(transport, cursor: "1.0 /+", limit: 50, wait: 5)
        #expect(page.entities.map(\.id) == ["check-1"] && page.removedIDs == ["check-2"])
        #expect(page.cursor == "1.2" && !page.more && !page.isPart)
        let request = try #require(transport.sent.withLock { $0.first })
        #expect(request.method == .get)
        #expect(request.path == "/apps/checks/data/checks/changes?cursor=1.0%20%2F%2B&limit=50&wait=5")
        #expect(request.headerFields[.authorization] == "Bearer token-1")
        #expect(request.headerFields[.accept] == "application/json")
        _ = try await changes(transport)
        #expect(transport.sent.withLock { $0.last?.path } == "/apps/checks/data/checks/changes")
    }

    @Test func anErrorAnswerIsTheServersError() async {
        let transport = CannedTransport(
            status: 410,
            body: #"{"code": "CURSOR_EXPIRED", "message": "Read the set again from the start."}"#
        )
        let error = await #expect(throws: ServiceError.self) { try await changes(transport, cursor: "1.9") }
        #expect(error?.status == 410 && error?.serverCode == "CURSOR_EXPIRED")
    }

    @Test(arguments: [201, 204, 304])
    func anotherStatusIsAnInvalidResponseNamingIt(status: Int) async {
        let error = await #expect(throws: ServiceError.self) {
            try await changes(CannedTransport(status: status, body: Self.page))
        }
        #expect(error == .invalidResponse && error?.status == status)
    }

    @Test func aBodyThatIsNotThePageIsAnInvalidResponse() async {
        for (contentType, body) in [
            ("text/html", Self.page), ("application/json", "<html>"), ("application/json", #"{"cursor": "1.2"}"#),
            ("application/json", ""),
        ] {
            let error = await #expect(throws: ServiceError.self) {
                try await changes(CannedTransport(status: 200, contentType: contentType, body: body))
            }
            #expect(error == .invalidResponse, "\(contentType) \(body)")
            #expect(error?.status == nil || error?.status == 200, "\(contentType) \(body)")
        }
    }

    @Test func aServerThatDoesNotAnswerIsUnreachable() async throws {
        // A port nothing listens on: refused at once.
        let client = MobileServicesClient(serverURL: URL(string: "http://127.0.0.1:9")!)
        let error = await #expect(throws: ServiceError.self) {
            try await client.appDataChanges(
                appID: "checks",
                entitySet: "checks",
                cursor: nil,
                token: SessionToken("token-1")
            )
        }
        #expect(error == .unreachable && error?.serverURL == URL(string: "http://127.0.0.1:9"))
    }
}
