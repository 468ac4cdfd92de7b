import Foundation
import GangwayProtocol
import Hummingbird
import NIOCore
import NIOFoundationCompat

/// Answers the reads devices repeat all day, ahead of the router and the generated
/// server: the settings exchange (every launch), an entity set of the app's data (every
/// home screen), and a page of a sync (thousands of entities in a first sync, a long
/// poll while online).
///
/// Why a path of its own: the first two answer the same bytes to every device until an
/// admin changes something, and encoding them (Foundation's `JSONEncoder`, most of all
/// for an entity set) is most of what such a request costs; a sync page is written by
/// hand (``SyncAnswer/json``), at a fraction of `JSONEncoder`'s cost. Here the handler's
/// work (authentication, the device's status, the contact note) runs as for any request,
/// through the same handlers' functions (``DevicesHandler``, ``DataHandler``) the
/// generated operations call; what is skipped is the route lookup, the generated request
/// conversion and, while the value is equal to the last one answered, the encoding. The
/// document is the one the generated server writes: the same type, keys sorted, the same
/// content type (the first two are its very bytes). ``GatewayResponder`` runs it inside
/// ``GatewayMiddleware``, so request IDs, error documents and the log line are those of
/// every route. Every other route, and these whenever the path or a sync's query is not
/// plain, go through the router.
struct DeviceReadRoute: Sendable {
    /// A request this route answers.
    enum Read: Equatable {
        /// `GET /apps/{appID}/settings`
        case settings(appID: String)
        /// `GET /apps/{appID}/data/{entitySet}`
        case appData(appID: String, entitySet: String)
        /// `GET /apps/{appID}/data/{entitySet}/changes`, with its query's values.
        case changes(appID: String, entitySet: String, cursor: String?, limit: Int?, wait: Int?)
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
        case .changes(let appID, let entitySet, let cursor, let limit, let wait):
            body = try await api.data.changes(
                appID: appID,
                entitySet: entitySet,
                cursor: cursor,
                limit: limit,
                wait: wait
            ).json
        }
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: body)
        )
    }

    /// The read a request asks for: a `GET` of exactly one of the paths, with plain
    /// segments and a plain query. Anything else (a percent-encoded segment, a trailing
    /// slash, a query this route does not read as the generated server would) is left to
    /// the router.
    static func read(of request: Request) -> Read? {
        guard request.method == .get else { return nil }
        return read(inPath: request.uri.path, query: request.uri.query)
    }

    /// The read for exactly `/apps/ID/settings`, `/apps/ID/data/SET` or
    /// `/apps/ID/data/SET/changes`; `nil` otherwise.
    ///
    /// Only a sync's query is read: each of `cursor`, `limit` and `wait` at most once,
    /// with a value of unreserved characters (RFC 3986, 2.3), digits alone for the two
    /// numbers. A query with anything else (an escape, another name, a name twice) goes
    /// to the router, so that what the generated server answers it stays the answer.
    static func read(inPath path: String, query: String? = nil) -> Read? {
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
        case 6 where parts[3].elementsEqual("data".utf8) && parts[5].elementsEqual("changes".utf8):
            guard let values = syncQuery(query ?? "") else { return nil }
            return .changes(
                appID: appID,
                entitySet: String(Substring(parts[4])),
                cursor: values.cursor,
                limit: values.limit,
                wait: values.wait
            )
        default:
            return nil
        }
    }

    /// A sync's query values; `nil` for a query the router should read.
    private static func syncQuery(_ query: String) -> (cursor: String?, limit: Int?, wait: Int?)? {
        var values: (cursor: String?, limit: Int?, wait: Int?) = (nil, nil, nil)
        guard !query.isEmpty else { return values }
        var names: Set<Substring> = []
        for item in query.split(separator: "&", omittingEmptySubsequences: false) {
            guard let equals = item.firstIndex(of: "=") else { return nil }
            let name = item[..<equals]
            let value = item[item.index(after: equals)...]
            guard !value.isEmpty, names.insert(name).inserted, PercentEncoding.isUnreserved(value) else { return nil }
            // A number is digits alone, few enough for an `Int`: anything else is the
            // router's 400.
            let number = value.utf8.count <= 9 && value.utf8.allSatisfy(isDigit) ? Int(value) : nil
            switch name {
            case "cursor": values.cursor = String(value)
            case "limit" where number != nil: values.limit = number
            case "wait" where number != nil: values.wait = number
            default: return nil
            }
        }
        return values
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
