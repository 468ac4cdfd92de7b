import Foundation
import GangwayProtocol
import Hummingbird
import NIOCore
import NIOFoundationCompat

/// Answers the two reads devices repeat all day, ahead of the router and the generated
/// server: the settings exchange (every launch) and an entity set of the app's data
/// (every home screen).
///
/// Why a path of its own: both answer the same bytes to every device until an admin
/// changes something, and encoding them (Foundation's `JSONEncoder`, most of all for an
/// entity set) is most of what such a request costs. Here the handler's work
/// (authentication, the device's status, the contact note) runs as for any request,
/// through the same handlers' functions (``DevicesHandler``, ``DataHandler``) the
/// generated operations call; what is skipped is the route lookup, the generated request
/// conversion and, while the value is equal to the last one answered, the encoding. The bytes are those the generated
/// server writes: the same type, the same encoding options, the same content type.
/// ``GatewayResponder`` runs it inside ``GatewayMiddleware``, so request IDs, error
/// documents and the log line are those of every route. Every other route, and these
/// two whenever the path is not plain, go through the router.
struct DeviceReadRoute: Sendable {
    /// A request this route answers.
    enum Read: Equatable {
        /// `GET /apps/{appID}/settings`
        case settings(appID: String)
        /// `GET /apps/{appID}/data/{entitySet}`
        case appData(appID: String, entitySet: String)
    }

    let api: MobileServicesAPI
    /// What the API's handlers share: storage, keys, settings, clock and logger.
    var services: APIServices { api.services }
    let settings = EncodedBodyCache<Components.Schemas.SettingsExchange>()
    let appData = EncodedBodyCache<Components.Schemas.EntityList>()

    func respond(to read: Read) async throws -> Response {
        let body: ByteBuffer
        switch read {
        case .settings(let appID):
            body = try settings.body(for: try await api.devices.settingsExchange(appID: appID), key: appID)
        case .appData(let appID, let entitySet):
            let list = try await api.data.appData(appID: appID, entitySet: entitySet)
            body = try appData.body(for: list, key: "\(appID)/\(entitySet)")
        }
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: body)
        )
    }

    /// The read a request asks for: a `GET` of exactly one of the two paths, with plain
    /// segments. Anything else (a percent-encoded segment, a trailing slash) is left to
    /// the router.
    static func read(of request: Request) -> Read? {
        guard request.method == .get else { return nil }
        return read(inPath: request.uri.path)
    }

    /// The read for exactly `/apps/ID/settings` or `/apps/ID/data/SET`; `nil` otherwise.
    static func read(inPath path: String) -> Read? {
        let parts = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].isEmpty, parts[1].elementsEqual("apps".utf8),
            parts.dropFirst(2).allSatisfy({ !$0.isEmpty && !$0.contains(UInt8(ascii: "%")) })
        else { return nil }
        let appID = String(Substring(parts[2]))
        switch parts.count {
        case 4 where parts[3].elementsEqual("settings".utf8):
            return .settings(appID: appID)
        case 5 where parts[3].elementsEqual("data".utf8):
            return .appData(appID: appID, entitySet: String(Substring(parts[4])))
        default:
            return nil
        }
    }
}
