import Foundation
import HTTPTypes
import OpenAPIRuntime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The terminal app's client transport: it fails every call as a dead network would
/// while `offline on` is set, and otherwise says on the terminal what the app is waiting
/// for ("Signing in…") while a call to the server is under way, wiping the line when it
/// ends.
///
/// Progress shows only on a terminal: plain output stays a transcript of the screens, the
/// same at every run. A failure is not reported here; the flow shows it on its error
/// screen.
struct TerminalTransport: ClientTransport {
    let base: any ClientTransport
    let network: NetworkSwitch
    let console: Console

    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        if network.isOffline { throw URLError(.notConnectedToInternet) }
        // The device-code screen shows its own wait while the device polls for tokens.
        guard console.isInteractive, operationID != "requestToken" else {
            return try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
        }
        let host = baseURL.host.map { " (\($0)\(baseURL.port.map { ":\($0)" } ?? ""))" } ?? ""
        console.write(console.styled("⋯ \(Self.activity(operationID))\(host)…", .dim))
        defer { console.control(.clearLine) }
        return try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
    }

    /// What the person is told a call does.
    static func activity(_ operationID: String) -> String {
        let known = [
            "discoverApp", "getActivationKey", "checkVersion", "signIn", "signOut", "registerDevice", "getSettings",
            "uploadLogs", "authorizeDevice", "getUserInfo", "revokeToken",
        ]
        return localized("progress." + (known.contains(operationID) ? operationID : "other"))
    }
}
