import AsyncHTTPClient
import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import NIOCore
import NIOHTTP1
import Testing

@Suite("Malformed input is a 4xx with a JSON error, never a 500", .servingTurn, .tags(.postgres), .skipsTags)
struct MalformedInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var method: HTTPRequest.Method
        var path: String
        var body: String?
        var contentType: String?
        var status: HTTPResponse.Status
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "truncated JSON",
            method: .post,
            path: "/apps/checks/sessions",
            body: #"{"username": "alice""#,
            status: .badRequest
        ),
        Case(
            name: "not JSON",
            method: .post,
            path: "/apps/checks/sessions",
            body: "username=alice",
            status: .badRequest
        ),
        Case(name: "a JSON array", method: .post, path: "/apps/checks/sessions", body: "[1, 2]", status: .badRequest),
        Case(
            name: "a field of the wrong type",
            method: .post,
            path: "/apps/checks/sessions",
            body: #"{"username": "alice", "password": 12, "deviceID": "d"}"#,
            status: .badRequest
        ),
        Case(
            name: "a missing field",
            method: .post,
            path: "/apps/checks/sessions",
            body: #"{"username": "alice", "password": "x"}"#,
            status: .badRequest
        ),
        Case(name: "an empty body", method: .post, path: "/apps/checks/sessions", body: nil, status: .badRequest),
        Case(
            name: "null fields",
            method: .post,
            path: "/apps/checks/sessions",
            body: #"{"username": null, "password": null, "deviceID": null}"#,
            status: .badRequest
        ),
        Case(
            name: "an empty user name",
            method: .post,
            path: "/apps/checks/sessions",
            body: #"{"username": "", "password": "x", "deviceID": "d"}"#,
            status: .badRequest
        ),
        Case(
            name: "a device ID with a slash",
            method: .post,
            path: "/apps/checks/sessions",
            body: #"{"username": "alice", "password": "x", "deviceID": "a/b"}"#,
            status: .badRequest
        ),
        Case(
            name: "a huge password",
            method: .post,
            path: "/apps/checks/sessions",
            body: #"{"username": "alice", "password": "\#(String(repeating: "p", count: 5000))", "deviceID": "d"}"#,
            status: .badRequest
        ),
        Case(
            name: "a body of another media type",
            method: .post,
            path: "/apps/checks/sessions",
            body: #"{"username": "alice", "password": "x", "deviceID": "d"}"#,
            contentType: "text/plain",
            status: .unsupportedMediaType
        ),
        Case(
            name: "a body said to be in another character set",
            method: .post,
            path: "/apps/checks/sessions",
            body: #"{"username": "alice", "password": "x", "deviceID": "d"}"#,
            contentType: "application/json; charset=latin1",
            status: .unsupportedMediaType
        ),
        Case(
            name: "a body said to be UTF-8, in quotes and capitals",
            method: .post,
            path: "/apps/checks/sessions",
            body: #"{"username": "alice", "password": "not-it", "deviceID": "d"}"#,
            contentType: #"application/json; charset="UTF-8""#,
            status: .unauthorized
        ),
        Case(
            name: "a body over 1 MiB",
            method: .post,
            path: "/apps/checks/sessions",
            body: #"{"username": "\#(String(repeating: "a", count: 1 << 20))"}"#,
            status: .contentTooLarge
        ),
        Case(
            name: "an unknown app",
            method: .post,
            path: "/apps/nope/sessions",
            body: #"{"username": "alice", "password": "alice-password", "deviceID": "d"}"#,
            status: .notFound
        ),
        Case(
            name: "an app ID that cannot exist",
            method: .get,
            path: "/apps/%00%ff/version-check?version=1",
            status: .notFound
        ),
        Case(name: "an unknown route", method: .get, path: "/nothing/here", status: .notFound),
        Case(
            name: "a query of the wrong type",
            method: .get,
            path: "/admin/apps/checks/logs?limit=many",
            status: .badRequest
        ),
        Case(name: "settings without a token", method: .get, path: "/apps/checks/settings", status: .unauthorized),
        Case(
            name: "a settings value of the wrong type",
            method: .patch,
            path: "/admin/apps/checks",
            body: #"{"settings": {"passwordPolicy": {"passwordPolicyMinLength": "eight"}}}"#,
            status: .badRequest
        ),
        Case(
            name: "an empty log level",
            method: .patch,
            path: "/admin/apps/checks",
            body: #"{"settings": {"logSettings": {"logLevel": ""}}}"#,
            status: .badRequest
        ),
        Case(
            name: "an unknown enum value",
            method: .patch,
            path: "/admin/apps/checks",
            body: #"{"settings": {"logSettings": {"logLevel": "loud"}}}"#,
            status: .badRequest
        ),
    ]

    @Test("each bad request gets its status and a JSON error with a code", arguments: cases)
    func malformed(_ item: Case) async throws {
        try await ServerFixture().runSeeded { api in
            var headers: HTTPFields = [:]
            if let contentType = item.contentType { headers[.contentType] = contentType }
            let token = item.path.hasPrefix("/admin") ? api.fixture.adminToken : nil
            let reply = try await api.send(item.method, item.path, token: token, json: item.body, headers: headers)
            #expect(reply.status == item.status, "\(reply.text.prefix(300))")
            #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
            let code = try #require(reply.code)
            #expect(!code.isEmpty)
            #expect(reply.headers[.init("x-request-id")!] != nil)
            #expect(!api.fixture.logs.text.contains("alice-password"))
        }
    }

    @Test(
        "names with C0 or C1 controls or text-direction overrides are refused; other scripts are not",
        arguments: [
            ("evil\u{202E}gpj.exe", false), ("a\u{0085}b", false), ("a\u{009B}31m", false), ("tab\there", false),
            ("\u{2066}isolate\u{2069}", false), ("a\u{202A}b", false),
            ("Zoë Ångström", true), ("שרה כהן", true), ("محمد", true), ("李雷", true),
        ]
    )
    func namesWithControls(name: String, accepted: Bool) async throws {
        try await ServerFixture().runSeeded { api in
            let json = String(decoding: try JSONEncoder().encode(["displayName": name]), as: UTF8.self)
            let user = try await api.admin(.patch, "/admin/users/alice", json: json)
            let token = try await api.signIn("alice")
            let device = try await api.send(
                .put,
                "/apps/checks/devices/device-1",
                token: token,
                json: String(
                    decoding: try JSONEncoder().encode(["deviceName": name, "platform": "linux", "appVersion": "1.0"]),
                    as: UTF8.self
                )
            )
            if accepted {
                try api.expectStatus(user, .ok)
                #expect(try user.decode(Components.Schemas.User.self).displayName == name)
                #expect(device.status == .ok || device.status == .created)
            } else {
                #expect(user.status == .badRequest)
                #expect(user.code == "INVALID_FIELD")
                #expect(device.status == .badRequest)
                #expect(device.code == "INVALID_FIELD")
                // Nothing was stored.
                let users = try await api.admin(.get, "/admin/users").decode([Components.Schemas.User].self)
                #expect(users.first { $0.username == "alice" }?.displayName != name)
            }
        }
    }

    @Test("a known path with another method is 405 with Allow")
    func wrongMethod() async throws {
        try await ServerFixture().run { api in
            let reply = try await api.send(.get, "/apps/checks/sessions")
            #expect(reply.status == .methodNotAllowed)
            #expect(reply.code == "METHOD_NOT_ALLOWED")
            #expect(reply.headers[.allow] == "POST")
            let admin = try await api.send(.delete, "/admin/apps/anything")
            #expect(admin.headers[.allow] == "GET, HEAD, PATCH")
            #expect(try await api.send(.delete, "/no/such/path").status == .notFound)
        }
    }

    @Test("a query value of the wrong form is said to be in the query, not the body")
    func queryOfTheWrongForm() async throws {
        try await ServerFixture().run { api in
            for path in ["/admin/activity?period=year", "/admin/audit?before=9223372036854775808"] {
                let reply = try await api.admin(.get, path)
                #expect(reply.status == .badRequest, "\(path)")
                #expect(!reply.text.contains("body"), "\(path): \(reply.text)")
                #expect(reply.text.contains("query"), "\(path): \(reply.text)")
            }
        }
    }

    @Test(
        "an admin body with a field the operation does not take is refused, naming it, and changes nothing",
        arguments: [
            ("/admin/apps/checks", #"{"nmae": "Renamed"}"#, "nmae"),
            (
                "/admin/apps/checks", #"{"name": "Renamed", "settings": {"passwordPolicyMinLength": 12}}"#,
                "settings.passwordPolicyMinLength"
            ),
            ("/admin/users/alice", #"{"blocked": true, "role": "admin"}"#, "role"),
            // Deeper too, where settings and entity sets are misspelled.
            (
                "/admin/apps/checks", #"{"settings": {"passwordPolicy": {"passwordPolicyMinLenght": 4}}}"#,
                "settings.passwordPolicy.passwordPolicyMinLenght"
            ),
            (
                "/admin/apps/checks", #"{"settings": {"logSettings": {"logLevl": "debug"}}}"#,
                "settings.logSettings.logLevl"
            ),
            (
                "/admin/apps/checks",
                #"{"settings": {"dataSettings": {"entitySets": {"checks": {"writableFields": [], "allowCreation": true}}}}}"#,
                "settings.dataSettings.entitySets.checks.allowCreation"
            ),
            ("/admin/users/alice", #"{"blocked": true, "\u001b[2J": 1}"#, #"\u{1B}[2J"#),
        ]
    )
    func unknownAdminField(path: String, body: String, field: String) async throws {
        try await ServerFixture().runSeeded { api in
            let before = try await api.admin(.get, path).text
            let reply = try await api.admin(.patch, path, json: body)
            #expect(reply.status == .badRequest)
            #expect(reply.code == "BAD_REQUEST")
            let message = try #require((try reply.json)["message"] as? String)
            #expect(message.hasSuffix("(at \(field): it takes no such field)."), "\(message)")
            #expect(!reply.text.contains(#"\u001b"#), "a key's control characters are not echoed")
            #expect(try await api.admin(.get, path).text == before, "nothing changed")
        }
    }

    @Test(
        "a body that names a key twice is refused, whichever value a parser would keep, and changes nothing",
        arguments: [
            ("/admin/users/alice", #"{"blocked": true, "blocked": false}"#, "blocked"),
            (
                "/admin/apps/checks",
                #"{"settings": {"passwordPolicy": {"passwordPolicyMinLength": 12, "passwordPolicyMinLength": 4}}}"#,
                "passwordPolicyMinLength"
            ),
            ("/admin/users/alice", #"{"displayName": "A", "displayName": "B"}"#, "displayName"),
        ]
    )
    func duplicateKeys(path: String, body: String, key: String) async throws {
        try await ServerFixture(over: .loopback).runSeeded { api in
            let before = try await api.admin(.get, path).text
            let reply = try await api.admin(.patch, path, json: body)
            #expect(reply.status == .badRequest)
            let message = try #require((try reply.json)["message"] as? String)
            #expect(message == "The body names '\(key)' twice in one object: send each key once.", "\(message)")
            #expect(try await api.admin(.get, path).text == before, "nothing changed")
        }
    }

    @Test("HEAD answers wherever GET does, with GET's status and headers and no body; elsewhere it is 405")
    func head() async throws {
        try await ServerFixture(over: .loopback).runSeeded { api in
            let token = try await api.signIn("alice")
            let base = api.running.url.absoluteString
            for (path, bearer) in [
                ("/health", nil), ("/openapi.json", nil), ("/console/sign-in", nil), ("/apps/checks/settings", token),
            ] as [(String, String?)] {
                var get = HTTPClientRequest(url: base + path)
                var head = HTTPClientRequest(url: base + path)
                head.method = .HEAD
                if let bearer {
                    get.headers.add(name: "Authorization", value: "Bearer \(bearer)")
                    head.headers.add(name: "Authorization", value: "Bearer \(bearer)")
                }
                let full = try await HTTPClient.shared.execute(get, timeout: .seconds(30))
                let body = try await full.body.collect(upTo: 1 << 20)
                let answer = try await HTTPClient.shared.execute(head, timeout: .seconds(30))
                let headBody = try await answer.body.collect(upTo: 1 << 20)
                #expect(answer.status == full.status, "\(path)")
                #expect(answer.status == .ok, "\(path)")
                #expect(headBody.readableBytes == 0, "\(path)")
                #expect(answer.headers["Content-Type"] == full.headers["Content-Type"], "\(path)")
                #expect(answer.headers["Content-Length"].first == "\(body.readableBytes)", "\(path)")
            }
            var refused = HTTPClientRequest(url: base + "/apps/checks/sessions")
            refused.method = .HEAD
            let answer = try await HTTPClient.shared.execute(refused, timeout: .seconds(30))
            #expect(answer.status == .methodNotAllowed)
            #expect(answer.headers["Allow"] == ["POST"])
        }
    }

    @Test("a caller's plain request ID is echoed; anything else is replaced")
    func requestID() async throws {
        try await ServerFixture().run { api in
            let plain = try await api.send(.get, "/health", headers: [.init("x-request-id")!: "trace-42"])
            #expect(plain.headers[.init("x-request-id")!] == "trace-42")
            let odd = try await api.send(.get, "/health", headers: [.init("x-request-id")!: "a b\u{7f}"])
            #expect(odd.headers[.init("x-request-id")!] != "a b\u{7f}")
            #expect(odd.headers[.init("x-request-id")!]?.count == 16)
            // IDs the server makes: 16 lowercase hex digits, a new one for each request.
            var made: Set<String> = []
            for _ in 0..<5 {
                let id = try #require(try await api.send(.get, "/health").headers[.init("x-request-id")!])
                #expect(id.count == 16 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
                made.insert(id)
            }
            #expect(made.count == 5)
            // The one log line of the request carries its ID.
            let line = api.fixture.logs.text.split(separator: "\n").first { $0.contains("trace-42") }
            #expect(line?.contains("/health") == true)
        }
    }

    @Test(
        "the bearer scheme is read in any case, with spaces or tabs around the token; anything else is a 401",
        arguments: [
            ("Bearer TOKEN", true), ("bearer TOKEN", true), ("BEARER  TOKEN\t ", true), ("Bearer \tTOKEN", true),
            ("Basic TOKEN", false), ("Bearer", false), ("Bearer    ", false), ("TOKEN", false),
            ("Bearer TOKEN extra", false),
        ]
    )
    func bearerHeader(header: String, accepted: Bool) async throws {
        try await ServerFixture(over: .loopback).runSeeded { api in
            let token = try await api.signIn("alice")
            let value = header.replacingOccurrences(of: "TOKEN", with: token)
            let reply = try await api.send(.get, "/apps/checks/settings", headers: [.authorization: value])
            #expect(reply.status == (accepted ? .ok : .unauthorized))
        }
    }

    @Test(
        "without a session's or the admin's token a body is 16 KiB at most, and its connection ends; with one, up to 1 MiB",
        arguments: Backend.available
    )
    func bodyLimitsFollowAuthentication(backend: Backend) async throws {
        try await ServerFixture(over: .loopback, backend: backend).runSeeded { api in
            let padding = String(repeating: "a", count: 20 << 10)
            let signIn = #"{"username": "alice", "password": "\#(padding)", "deviceID": "d"}"#
            let refused = try await api.sendAlone(.post, "/apps/checks/sessions", json: signIn)
            #expect(refused.status == .contentTooLarge)
            #expect(refused.code == "PAYLOAD_TOO_LARGE")
            #expect(refused.headers[.connection] == "close", "the rest of the body is not read")
            // A token that opens nothing counts as none.
            let forged = try await api.sendAlone(.post, "/apps/checks/logs", token: "gw_not-a-session", json: signIn)
            #expect(forged.status == .contentTooLarge)

            try await api.admin(
                .patch,
                "/admin/apps/checks",
                json: #"{"settings": {"logSettings": {"logEnabled": true}}}"#
            )
            .expect(.ok)
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let entry =
                #"{"time": "2026-11-22T06:00:00Z", "level": "info", "message": "\#(String(repeating: "b", count: 4000))"}"#
            let logs = #"{"entries": [\#(Array(repeating: entry, count: 50).joined(separator: ","))]}"#
            #expect(logs.utf8.count > 150 << 10)
            try await api.send(.post, "/apps/checks/logs", token: token, json: logs).expect(.accepted)
        }
    }
}
