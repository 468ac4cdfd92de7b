import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A client transport that says on the terminal what the app is waiting for ("Signing
/// in…") while a call to the server is under way, and wipes the line when it ends.
///
/// Only on a terminal: plain output stays a transcript of the screens, the same at every
/// run. A failure is not reported here; the flow shows it on its error screen.
struct ProgressTransport: ClientTransport {
    let base: any ClientTransport
    let console: Console

    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
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
