import Foundation
import GangwayProtocol
import Hummingbird
import NIOCore
import NIOFoundationCompat
import Synchronization

/// Answers the settings exchange, the call every device makes on every launch, ahead of
/// the router and the generated server.
///
/// The handler's work (authentication, the device's status, the contact note) runs as
/// for any request, through the same ``MobileServicesAPI/settingsExchange(appID:)``; what
/// is skipped is the route lookup, the generated request conversion and, while the app's
/// settings have not changed, the JSON encoding. The bytes are those the generated server
/// would write: the same type, encoded with the same options, the same content type.
/// ``GatewayResponder`` runs it inside ``GatewayMiddleware``, so request IDs, error
/// documents and the log line are the same as for every route.
struct SettingsExchangeRoute: Sendable {
    let api: MobileServicesAPI
    let cache = EncodedSettingsCache()

    func respond(appID: String) async throws -> Response {
        let exchange = try await api.settingsExchange(appID: appID)
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: try cache.body(for: exchange, appID: appID))
        )
    }

    /// The app ID of a request this route answers: a `GET` of exactly
    /// `/apps/{appID}/settings` with a plain ID. Anything else (a percent-encoded ID, a
    /// trailing slash) is left to the generated route.
    static func appID(of request: Request) -> String? {
        guard request.method == .get else { return nil }
        return appID(inSettingsPath: request.uri.path)
    }

    /// `ID` for exactly `/apps/ID/settings` with a plain ID; `nil` for any other path.
    static func appID(inSettingsPath path: String) -> String? {
        let parts = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[1].elementsEqual("apps".utf8),
            parts[3].elementsEqual("settings".utf8), !parts[2].isEmpty,
            !parts[2].contains(UInt8(ascii: "%"))
        else { return nil }
        return String(Substring(parts[2]))
    }
}

/// The last encoded settings exchange per app, reused while the settings are equal.
final class EncodedSettingsCache: Sendable {
    private let entries = Mutex<[String: (exchange: Components.Schemas.SettingsExchange, body: ByteBuffer)]>([:])

    /// Encodes as the generated server does: compact, sorted keys.
    private static func encode(_ exchange: Components.Schemas.SettingsExchange) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(exchange)
    }

    func body(for exchange: Components.Schemas.SettingsExchange, appID: String) throws -> ByteBuffer {
        if let hit = entries.withLock({ $0[appID] }), hit.exchange == exchange { return hit.body }
        let body = ByteBuffer(data: try Self.encode(exchange))
        entries.withLock { $0[appID] = (exchange, body) }
        return body
    }
}
