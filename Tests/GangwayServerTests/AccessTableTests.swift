import Foundation
import GangwayProtocol
import GangwayServerTesting
import HTTPTypes
import Testing

@testable import GangwayServer

/// Who may call each operation is the document's table (`x-minimum-role`), and one check
/// holds every caller to it: over HTTP, and for the console's operators in process.
@Suite("Access: every operation answers each kind of caller as its x-minimum-role says", .servingTurn)
struct AccessTableTests {
    /// An operation of the document: its method, a path with names the standard seed
    /// holds, and the access the document writes for it.
    struct Operation: CustomStringConvertible {
        var id: String
        var method: HTTPRequest.Method
        var path: String
        var access: String
        var description: String { "\(id) (\(method) \(path), \(access))" }
    }

    static var operations: [Operation] {
        get throws {
            let document = try JSONSerialization.jsonObject(with: try APIDocument.json()) as? [String: Any]
            let paths = try #require(document?["paths"] as? [String: [String: Any]])
            let names = [
                "{appID}": "checks", "{registrationID}": "r1", "{username}": "alice", "{entitySet}": "checks",
                "{entityID}": "e1", "{name}": "ops.alice", "{deviceID}": "device-1",
            ]
            var operations: [Operation] = []
            for (template, methods) in paths {
                for (method, value) in methods {
                    let operation = try #require(value as? [String: Any])
                    operations.append(
                        Operation(
                            id: try #require(operation["operationId"] as? String),
                            method: try #require(HTTPRequest.Method(method.uppercased())),
                            path: names.reduce(template) { $0.replacingOccurrences(of: $1.key, with: $1.value) },
                            access: try #require(operation["x-minimum-role"] as? String, "\(template) \(method)")
                        )
                    )
                }
            }
            return operations.sorted { $0.id < $1.id }
        }
    }

    enum Caller: String, CaseIterable {
        case none, wrongToken, session, adminToken
    }

    @Test("over HTTP: no token, a wrong one, a device's session and the admin token, for every operation")
    func overHTTP() async throws {
        let operations = try Self.operations
        #expect(operations.count == 74)
        try await ServerFixture().runSeeded { api in
            for operation in operations {
                var statuses: [Caller: HTTPResponse.Status] = [:]
                for caller in Caller.allCases {
                    // A new session each time: an operation may end it (signOut).
                    let token: String? =
                        switch caller {
                        case .none: nil
                        case .wrongToken: "gw_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
                        case .session: try await api.signIn("alice")
                        case .adminToken: api.fixture.adminToken
                        }
                    let body = [.post, .put, .patch].contains(operation.method) ? "{}" : nil
                    let reply = try await api.send(operation.method, operation.path, token: token, json: body)
                    statuses[caller] = reply.status
                    let allowed: Bool =
                        switch operation.access {
                        case "anyone": true
                        case "device": caller == .session
                        default: caller == .adminToken
                        }
                    // An OAuth operation refuses in OAuth's words (RFC 6750 §3.1).
                    let oauth = operation.path.contains("/oauth/")
                    if allowed, operation.access != "anyone" {
                        // Let through: the answer is the handler's, never a refusal of the caller.
                        #expect(reply.status != .unauthorized, "\(operation) as \(caller): \(reply.text)")
                        #expect(!["ADMIN_TOKEN_REQUIRED", "ROLE_REQUIRED"].contains(reply.code ?? ""), "\(operation)")
                    } else if !allowed {
                        #expect(reply.status == .unauthorized, "\(operation) as \(caller): \(reply.text)")
                        let code =
                            oauth ? nil : operation.access == "device" ? "UNAUTHORIZED" : "ADMIN_TOKEN_REQUIRED"
                        #expect(reply.code == code, "\(operation) as \(caller): \(reply.text)")
                        if oauth {
                            let error = (try? reply.json)?["error"] as? String
                            #expect(["invalid_token", "invalid_request"].contains(error ?? ""), "\(operation)")
                        }
                    }
                }
                // An open operation judges what is sent, never who sends it.
                if operation.access == "anyone" {
                    #expect(Set(statuses.values).count == 1, "\(operation): \(statuses)")
                }
            }
        }
    }

    @Test("in process, as the console runs them: an operator's role reaches exactly the operations the table gives it")
    func operatorsInProcess() throws {
        let policy = try AccessPolicy(document: APIDocument.json())
        let order = ["viewer", "operator", "admin"]
        for operation in try Self.operations {
            for role in OperatorRole.allCases {
                let principal = Principal.console(operator: "ops.alice", role: role)
                let allowed: Bool =
                    switch operation.access {
                    case "anyone": true
                    case "device": false
                    default:
                        try #require(order.firstIndex(of: role.rawValue))
                            >= (try #require(order.firstIndex(of: operation.access)))
                    }
                do {
                    try policy.check(principal, for: operation.id)
                    #expect(allowed, "\(operation) ran for a \(role.rawValue)")
                } catch {
                    #expect(!allowed, "\(operation) refused a \(role.rawValue): \(error)")
                    let expected = operation.access == "device" ? "UNAUTHORIZED" : "ROLE_REQUIRED"
                    #expect(error.code.rawValue == expected, "\(operation)")
                }
            }
        }
        // An operation the table does not name is refused to everyone, the admin token too.
        #expect(throws: APIError.adminRequired) { try policy.check(.adminToken, for: "dropEverything") }
    }

    @Test(
        "the table is read from the document: an operation without x-minimum-role, or with an unknown one, is refused"
    )
    func documentHoldsEveryOperation() throws {
        let missing = #"{"paths": {"/x": {"get": {"operationId": "getX"}}}}"#
        #expect(throws: OperationAccess.Problem.self) { try AccessPolicy(document: Data(missing.utf8)) }
        let unknown = #"{"paths": {"/x": {"get": {"operationId": "getX", "x-minimum-role": "root"}}}}"#
        #expect(throws: OperationAccess.Problem.self) { try AccessPolicy(document: Data(unknown.utf8)) }
        let known = #"{"paths": {"/x": {"get": {"operationId": "getX", "x-minimum-role": "operator"}}}}"#
        #expect(try AccessPolicy(document: Data(known.utf8)).table == ["getX": .role(.operator)])
    }
}
