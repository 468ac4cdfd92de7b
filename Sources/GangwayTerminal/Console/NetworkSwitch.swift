import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The terminal app's `offline on|off`: while on, the app behaves as if the network were
/// gone, and no call reaches the server.
final class NetworkSwitch: Sendable {
    private let offline = Mutex(false)

    /// Whether the app is cut off from the network.
    var isOffline: Bool {
        get { offline.withLock { $0 } }
        set { offline.withLock { $0 = newValue } }
    }

    /// A transport that fails every call as a dead network would while the switch is on.
    func transport(over base: any ClientTransport) -> any ClientTransport {
        SwitchedTransport(base: base, network: self)
    }

    private struct SwitchedTransport: ClientTransport {
        let base: any ClientTransport
        let network: NetworkSwitch

        func send(
            _ request: HTTPRequest,
            body: HTTPBody?,
            baseURL: URL,
            operationID: String
        ) async throws -> (HTTPResponse, HTTPBody?) {
            if network.isOffline { throw URLError(.notConnectedToInternet) }
            return try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
        }
    }
}
