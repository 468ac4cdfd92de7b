import Foundation
import GangwayProtocol
import HTTPTypes
import OpenAPIRuntime
import Synchronization

/// Answers the settings exchange, the call every device makes on every launch, with
/// bytes encoded once per app and settings.
///
/// The handler's work (authentication, the device's status, the contact note) runs as
/// for any request, through the same ``MobileServicesAPI/settingsExchange(appID:)``; only
/// the JSON encoding, a fifth of the route's CPU time, is skipped when the app's settings
/// have not changed. The bytes are those the generated server would write: the same
/// type, encoded with the same options.
struct SettingsExchangeMiddleware: ServerMiddleware {
    let api: MobileServicesAPI
    let cache = EncodedSettingsCache()

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard operationID == "getSettings", let parameter = metadata.pathParameters["appID"] else {
            return try await next(request, body, metadata)
        }
        let appID = String(parameter)
        let exchange = try await api.settingsExchange(appID: appID)
        var response = HTTPResponse(status: .ok)
        response.headerFields[.contentType] = "application/json; charset=utf-8"
        return (response, HTTPBody(try cache.body(for: exchange, appID: appID)))
    }
}

/// The last encoded settings exchange per app, reused while the settings are equal.
final class EncodedSettingsCache: Sendable {
    private let entries = Mutex<[String: (exchange: Components.Schemas.SettingsExchange, body: Data)]>([:])

    /// Encodes as the generated server does: compact, sorted keys.
    private static func encode(_ exchange: Components.Schemas.SettingsExchange) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(exchange)
    }

    func body(for exchange: Components.Schemas.SettingsExchange, appID: String) throws -> Data {
        if let hit = entries.withLock({ $0[appID] }), hit.exchange == exchange { return hit.body }
        let body = try Self.encode(exchange)
        entries.withLock { $0[appID] = (exchange, body) }
        return body
    }
}
