import Foundation
import FuzzServer
import FuzzSupport
import GangwayPolicy
import GangwayProtocol
import GangwayServices
import HTTPTypes
import OpenAPIRuntime

// Settings JSON, where a passcode policy's numbers and booleans may arrive as strings:
// the hand-written reader (`PasscodePolicy.fromSettings`, `gangway store init
// --policy-json`), the settings exchange as a device reads it (`MobileServicesClient`
// with the generated decoding and `ServerSettings`), and an admin's change of an app's
// settings through the whole server, which a device must then read.
//
// Modes (first byte):
// 0  the rest as a hand-written settings document;
// 1  the rest as the body of the settings exchange's answer, read by a device;
// 2  the rest as the body of `PATCH /admin/apps/settings`: when the server takes it, a
//    device signed in on that app reads the settings exchange that follows.

runFuzzer(fuzz)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let (mode, rest) = FuzzInput(start, count).mode(of: 3) else { return 0 }
    switch mode {
    case 0: readHandWritten(Data(rest))
    case 1: blocking { _ = try? await deviceReads(Array(rest)) }
    default: blocking { await adminChanges(Array(rest)) }
    }
    return 0
}

private func readHandWritten(_ json: Data) {
    guard let policy = try? PasscodePolicy.fromSettings(json) else { return }
    // The settings exchange's form of the policy says the same, read either way.
    let wire = Components.Schemas.PasswordPolicy(policy)
    invariant((try? wire.policy()) == policy, "a policy reads back from its settings-exchange form")
    let encoded = try! JSONEncoder().encode(wire)
    invariant((try? PasscodePolicy.fromSettings(encoded)) == policy, "a policy reads back from its settings JSON")
}

/// What a device makes of a settings exchange answering `body`.
private func deviceReads(_ body: [UInt8]) async throws -> ServerSettings {
    let client = MobileServicesClient(serverURL: URL(string: "http://127.0.0.1:8080")!, transport: Answer(body: body))
    return try await client.settings(appID: "settings", token: SessionToken("fuzz"))
}

private func adminChanges(_ body: [UInt8]) async {
    let server = FuzzServer.shared
    let admin = FuzzServer.headers(contentType: "application/json", token: server.adminToken)
    let restore = Baseline.body
    let reply = await server.send(.patch, "/admin/apps/settings", headers: admin, body: body)
    guard reply.status == .ok else { return }
    let exchange = await server.send(
        .get,
        "/apps/settings/settings",
        headers: FuzzServer.headers(token: server.settingsSession)
    )
    invariant(exchange.status == .ok, "the settings exchange answers after an admin's change")
    do {
        _ = try await deviceReads(exchange.body)
    } catch {
        invariant(false, "a device reads the settings the server took (\(error))")
    }
    // Back to the app's first settings, so the next input starts from the same server.
    await server.send(.patch, "/admin/apps/settings", headers: admin, body: restore)
}

enum Baseline {
    /// The app's first settings, every key given, as a change that restores them.
    static let body: [UInt8] = blocking {
        let server = FuzzServer.shared
        let app = await server.send(.get, "/admin/apps/settings", headers: FuzzServer.headers(token: server.adminToken))
        let object = try! JSONSerialization.jsonObject(with: Data(app.body)) as! [String: Any]
        return Array(try! JSONSerialization.data(withJSONObject: ["settings": object["settings"]!]))
    }
}

/// A server that answers every request with `body`, as JSON.
private struct Answer: ClientTransport {
    let body: [UInt8]

    func send(
        _ request: HTTPRequest,
        body requestBody: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), HTTPBody(body))
    }
}
