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
        defer { console.write("\r\u{1B}[2K") }
        return try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
    }

    /// What the person is told a call does.
    static func activity(_ operationID: String) -> String {
        switch operationID {
        case "discoverApp": "Looking up the app for your work email"
        case "getActivationKey": "Fetching the server's activation key"
        case "checkVersion": "Checking that this app version is still supported"
        case "signIn": "Signing in"
        case "signOut": "Signing out"
        case "registerDevice": "Registering this device"
        case "getSettings": "Exchanging settings with the server"
        case "uploadLogs": "Uploading logs"
        case "authorizeDevice": "Asking the server for a sign-in code"
        case "getUserInfo": "Finding out who signed in"
        case "revokeToken": "Signing out"
        default: "Contacting the server"
        }
    }
}
