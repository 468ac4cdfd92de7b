import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "Ingest: a batch of NDJSON lines writes an entity set once by its ID, each refused line said by number",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct IngestAPITests {
    typealias Report = Components.Schemas.IngestReport
    static let ndjson: HTTPFields = [.contentType: "application/x-ndjson"]

    static func ingest(
        _ api: API,
        _ body: String,
        batch: String = "batch-1",
        set: String = "checks"
    ) async throws
        -> ServerReply
    {
        let path = "/admin/apps/checks/data/\(set)/ingest/\(batch)"
        // A refused batch ends its connection (its body may be unread): each over its own.
        guard api.running.port == 0 else {
            return try await api.sendAlone(.post, path, token: api.fixture.adminToken, json: body, headers: Self.ndjson)
        }
        return try await api.send(.post, path, token: api.fixture.adminToken, json: body, headers: Self.ndjson)
    }

    static func put(_ id: String, _ fields: [String: String]) -> String {
        let object: [String: Any] = ["id": id, "fields": fields]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// Every entity of the set, by ID, as the admin lists it.
    static func entities(_ api: API) async throws -> [String: Components.Schemas.Entity] {
        var all: [String: Components.Schemas.Entity] = [:]
        var after: String?
        repeat {
            let path = "/admin/apps/checks/data/checks?limit=1000" + (after.map { "&after=\($0)" } ?? "")
            let list = try await api.admin(.get, path).decode(Components.Schemas.EntityList.self)
            for entity in list.entities { all[entity.id] = entity }
            after = list.more == true ? list.entities.last?.id : nil
        } while after != nil
        return all
    }

    @Test(
        "lines put and remove entities in order; blank lines count; each bad line is refused by number, the rest apply",
        arguments: Backend.available
    )
    func linesApply(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            try api.expectStatus(
                try await api.admin(.put, "/admin/apps/checks/data/checks/gone", json: #"{"fields": {"a": "1"}}"#),
                .created
            )
            let tooMany = Dictionary(uniqueKeysWithValues: (0...EntityLimits.fieldsPerEntity).map { ("f\($0)", "v") })
            let lines = [
                Self.put("a", ["status": "open", "stand": "12"]),  // 1
                "",  // 2: blank
                Self.put("b", ["status": "open"]) + "\r",  // 3: CRLF
                #"{"id": "gone", "remove": true}"#,  // 4
                "not json at all",  // 5
                #"{"id": "c", "fields": {"status": 7}}"#,  // 6: a value that is not a string
                #"{"id": "-bad", "fields": {}}"#,  // 7: not an ID
                #"{"id": "d", "fields": {"1st": "x"}}"#,  // 8: not a field name
                Self.put("e", tooMany),  // 9
                #"{"id": "f", "fields": {}, "secret": "hunter2"}"#,  // 10: a member the format does not name
                #"{"id": "g", "fields": {}, "remove": true}"#,  // 11: both
                #"{"id": "h", "remove": false}"#,  // 12
                #"{"fields": {}}"#,  // 13: no id
                Self.put("a", ["status": "done"]),  // 14: a later line of the same entity wins
                "[1, 2]",  // 15
                Self.put("i", ["note": String(repeating: "é", count: EntityLimits.valueLength.upperBound + 1)]),  // 16
                #"{"id": "\u006a", "fields": {"k\u0031": "caf\u00e9"}}"#,  // 17: escapes, read by the decoder too
            ]
            let reply = try await Self.ingest(api, lines.joined(separator: "\n") + "\n")
            try api.expectStatus(reply, .ok)
            let report = try reply.decode(Report.self)
            #expect(report.batchID == "batch-1" && report.entitySet == "checks")
            #expect(report.lines == 17 && report.linesDone == 17)
            #expect(report.written == 3 && report.removed == 1 && report.refused == 11)
            #expect(report.refusals.map(\.line) == [5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16])
            #expect(
                report.refusals.map(\.code) == [
                    "INVALID_LINE", "INVALID_LINE", "INVALID_FIELD", "INVALID_FIELD", "INVALID_FIELD", "INVALID_LINE",
                    "INVALID_LINE", "INVALID_LINE", "INVALID_LINE", "INVALID_LINE", "INVALID_FIELD",
                ]
            )
            // An ID is said when the line has one that can be an ID; a value, never.
            #expect(report.refusals.map { $0.id ?? "" } == ["", "c", "", "d", "e", "", "g", "h", "", "", "i"])
            #expect(report.refusals.allSatisfy { !$0.message.isEmpty && !$0.message.contains("hunter2") })
            #expect(report.refusals[5].message.contains("secret"))

            let entities = try await Self.entities(api)
            #expect(entities.keys.sorted() == ["a", "b", "j"])
            #expect(entities["a"]?.fields.additionalProperties == ["status": "done"])
            #expect(entities["a"]?.version == 1 && entities["a"]?.updatedBy == "admin")
            #expect(entities["j"]?.fields.additionalProperties == ["k1": "café"])

            // Devices see the batch through the sync, one change per entity.
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let page = try await api.send(.get, "/apps/checks/data/checks/changes?limit=100", token: token)
                .decode(Components.Schemas.EntityChanges.self)
            #expect(page.entities.map(\.id).sorted() == ["a", "b", "j"])
        }
    }

    @Test(
        "the same batch again applies nothing; with other lines, or shorter, it is refused; a cut batch goes on where it stopped",
        arguments: Backend.available
    )
    func onceByBatchID(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let lines = (1...12).map { Self.put("check-\($0)", ["status": "open", "n": "\($0)"]) }
            let body = lines.joined(separator: "\n") + "\n"
            let first = try await Self.ingest(api, body).decode(Report.self)
            #expect(first.written == 12 && first.linesDone == 12)
            // Sent again: the whole report again, and no entity changes.
            let again = try await Self.ingest(api, body)
            try api.expectStatus(again, .ok)
            var expected = first
            expected.linesDoneBefore = 12
            #expect(try again.decode(Report.self) == expected)
            #expect(first.linesDoneBefore == 0)
            #expect(try await Self.entities(api).values.allSatisfy { $0.version == 1 })

            // Other lines under the same ID, or fewer of them: refused, nothing applied.
            var other = lines
            other[3] = Self.put("check-4", ["status": "changed"])
            for body in [other.joined(separator: "\n") + "\n", lines.prefix(5).joined(separator: "\n") + "\n"] {
                let refused = try await Self.ingest(api, body)
                #expect(refused.status == .conflict)
                #expect(refused.code == "INGEST_BATCH_CHANGED")
            }
            #expect(try await Self.entities(api)["check-4"]?.fields.additionalProperties["status"] == "open")

            // A batch whose sending stopped after 5 lines, sent whole: the rest apply, once.
            let cut = try await Self.ingest(api, lines.prefix(5).joined(separator: "\n") + "\n", batch: "batch-2")
            #expect(try cut.decode(Report.self).linesDone == 5)
            let whole = try await Self.ingest(api, body, batch: "batch-2").decode(Report.self)
            #expect(whole.lines == 12 && whole.linesDone == 12 && whole.written == 12)
            let entities = try await Self.entities(api)
            #expect(entities.count == 12)
            // Written by batch-1, then once more by batch-2: each line of batch-2 once.
            #expect(entities.values.allSatisfy { $0.version == 2 })
        }
    }

    @Test("a caller without the admin's token, a bad ID, another media type or an unknown app is refused")
    func refusals() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let body = Self.put("a", ["status": "open"]) + "\n"
            let path = "/admin/apps/checks/data/checks/ingest/b1"
            let anonymous = try await api.send(.post, path, json: body, headers: Self.ndjson)
            #expect(anonymous.status == .unauthorized)
            let token = try await api.signIn("alice")
            let session = try await api.send(.post, path, token: token, json: body, headers: Self.ndjson)
            #expect([.unauthorized, .forbidden].contains(session.status))
            let asJSON = try await api.send(.post, path, token: fixture.adminToken, json: body)
            #expect(asJSON.status == .unsupportedMediaType && asJSON.code == "UNSUPPORTED_MEDIA_TYPE")
            let latin = try await api.send(
                .post,
                path,
                token: fixture.adminToken,
                json: body,
                headers: [.contentType: "application/x-ndjson; charset=iso-8859-1"]
            )
            #expect(latin.status == .unsupportedMediaType)
            // Another method is refused as one the route does not take, whatever its body's type.
            let put = try await api.send(.put, path, token: fixture.adminToken, json: body, headers: Self.ndjson)
            #expect(put.status == .methodNotAllowed && put.headers[.allow] == "POST")
            for bad in ["/admin/apps/checks/data/checks/ingest/-b", "/admin/apps/checks/data/-set/ingest/b1"] {
                let reply = try await api.send(.post, bad, token: fixture.adminToken, json: body, headers: Self.ndjson)
                #expect(reply.status == .badRequest)
            }
            let nowhere = try await api.send(
                .post,
                "/admin/apps/nowhere/data/checks/ingest/b1",
                token: fixture.adminToken,
                json: body,
                headers: Self.ndjson
            )
            #expect(nowhere.status == .notFound)
            #expect(try await Self.entities(api).isEmpty)
            // The refusals of a streamed body end the connection: the rest of it is never read.
            #expect(anonymous.headers[.connection] == "close")
        }
    }

    @Test("a body whose framing breaks after a part is a 400; the part stays, and the batch sent again goes on")
    func aBrokenBody() async throws {
        let fixture = try await ServerFixture(over: .loopback)
        try await fixture.runSeeded { api in
            let lines = (1...10_002).map { Self.put("row-\($0)", ["status": "open"]) + "\n" }
            let first = lines.joined().data(using: .utf8)!
            let head =
                "POST /admin/apps/checks/data/checks/ingest/broken HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(fixture.adminToken)\r\nContent-Type: application/x-ndjson\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n"
            // A chunk of every line but the last, then a chunk size that is no number.
            var request = Data(head.utf8)
            request.append(Data((String(first.count - lines[10_001].utf8.count, radix: 16) + "\r\n").utf8))
            request.append(first.prefix(first.count - lines[10_001].utf8.count))
            request.append(Data("\r\nzz\r\nabc\r\n0\r\n\r\n".utf8))
            let (port, sent) = (api.running.port, request)
            let answer = try await onOwnThread { try DestinationTests.exchange(port: port, sent) }
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(300))")
            #expect(answer.contains("BAD_REQUEST") && answer.contains("could not be read to its end"))
            #expect(!fixture.logs.text.contains("handler failed"))
            // The first two parts (5,000 lines each) were committed; the batch whole applies the rest.
            let again = try await Self.ingest(api, lines.joined(), batch: "broken").decode(Report.self)
            #expect(again.linesDoneBefore == 10_000 && again.linesDone == 10_002 && again.written == 10_002)
        }
    }

    @Test("a batch many times the API's body limit streams, a part at a time, with the set's schema checked")
    func largeBatch() async throws {
        let fixture = try await ServerFixture(over: .loopback)
        try await fixture.runSeeded { api in
            try api.expectStatus(
                try await api.admin(
                    .put,
                    "/admin/apps/checks/schemas/checks",
                    json:
                        #"{"fields": [{"name": "status", "type": "text", "required": true}, {"name": "n", "type": "integer"}, {"name": "note", "type": "text"}]}"#
                ),
                .ok
            )
            let note = String(repeating: "n", count: 200)
            let count = 12_345
            var body = ""
            for line in 1...count {
                // Every 1,000th line misfits the schema.
                let n = line % 1_000 == 0 ? "many" : "\(line)"
                body += Self.put("row-\(line)", ["status": "open", "n": n, "note": note]) + "\n"
            }
            #expect(body.utf8.count > 2 * (1 << 20))
            let report = try await Self.ingest(api, body).decode(Report.self)
            #expect(report.lines == Int64(count) && report.linesDone == Int64(count))
            #expect(report.written == Int64(count - 12) && report.refused == 12)
            #expect(report.refusals.map(\.line) == (1...12).map { Int64($0 * 1_000) })
            #expect(report.refusals.allSatisfy { $0.code == "FIELD_NOT_VALID" })
            let entities = try await Self.entities(api)
            #expect(entities.count == count - 12)
            #expect(entities["row-12345"]?.fields.additionalProperties["n"] == "12345")
        }
    }
}
