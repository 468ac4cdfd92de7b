import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite("Log upload")
struct LogUploadTests {
    static let entries = """
        {"entries": [
          {"time": "2026-11-22T06:00:00Z", "level": "info", "message": "opened checks", "source": "app"},
          {"time": "2026-11-22T06:01:00.250+02:00", "level": "error", "message": "sync\\u0000failed"}
        ]}
        """

    @Test("refused with 409 while the app's log settings turn it off", arguments: Backend.available)
    func disabled(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let token = try await api.signIn("alice")
            let reply = try await api.send(.post, "/apps/checks/logs", token: token, json: Self.entries)
            #expect(reply.status == .conflict)
            #expect(reply.code == "LOG_UPLOAD_DISABLED")
        }
    }

    @Test("stored with the uploader's user and device; the admin reads them newest first", arguments: Backend.available)
    func upload(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try api.expectStatus(
                try await api.admin(
                    .patch,
                    "/admin/apps/checks",
                    json: #"{"settings": {"logSettings": {"logEnabled": true, "maxEntriesPerUpload": 2}}}"#
                ),
                .ok
            )
            let token = try await api.signIn("alice")
            let reply = try await api.send(.post, "/apps/checks/logs", token: token, json: Self.entries)
            #expect(reply.status == .accepted)
            #expect(try reply.json["accepted"] as? Int == 2)
            let logs = try await api.admin(.get, "/admin/apps/checks/logs?limit=10").decode(
                [Components.Schemas.StoredLogEntry].self
            )
            #expect(logs.map(\.message) == ["sync\u{FFFD}failed", "opened checks"])
            // Offsets and fractions are read; dates are written in UTC to the second.
            #expect(logs.first?.time == Date(timeIntervalSince1970: 1_795_320_060))
            #expect(logs.allSatisfy { $0.userID == "alice" && $0.deviceID == "device-1" })

            let tooMany = """
                {"entries": [\(Array(repeating: #"{"time": "2026-11-22T06:00:00Z", "level": "info", "message": "x"}"#, count: 3).joined(separator: ","))]}
                """
            let refused = try await api.send(.post, "/apps/checks/logs", token: token, json: tooMany)
            #expect(refused.status == .conflict)
            #expect(refused.code == "TOO_MANY_ENTRIES")
            #expect(
                try await api.admin(.get, "/admin/apps/checks/logs").decode([Components.Schemas.StoredLogEntry].self)
                    .count == 2
            )
            #expect(try await api.admin(.get, "/admin/apps/checks/logs?limit=0").status == .badRequest)
        }
    }
}
