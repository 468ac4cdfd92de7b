import Foundation

/// The paths and methods the API document declares, to tell "no such route" (404) from
/// "not with this method" (405 with `Allow`).
struct RouteTable: Sendable {
    private var routes: [(segments: [Substring?], methods: [String])] = []

    /// Reads the `paths` of an OpenAPI document; `{name}` segments match any value.
    init(document: Data, extra: [String: [String]] = [:]) throws {
        guard let root = try JSONSerialization.jsonObject(with: document) as? [String: Any],
            let paths = root["paths"] as? [String: [String: Any]]
        else { throw CocoaError(.coderReadCorrupt) }
        var all = paths.mapValues { Array($0.keys) }
        all.merge(extra) { $0 + $1 }
        for (path, methods) in all.sorted(by: { $0.key < $1.key }) {
            let segments = path.split(separator: "/").map { $0.hasPrefix("{") ? nil : $0 }
            routes.append((segments, methods.map { $0.uppercased() }.sorted()))
        }
    }

    /// The methods the document allows on `path`, or `nil` when it declares no such path.
    func methods(for path: String) -> [String]? {
        let parts = path.split(separator: "/")
        for route in routes where route.segments.count == parts.count {
            if zip(route.segments, parts).allSatisfy({ $0 == nil || $0 == $1 }) {
                // A route that answers GET answers HEAD too (``GatewayResponder``).
                return route.methods.contains("GET") ? (route.methods + ["HEAD"]).sorted() : route.methods
            }
        }
        return nil
    }
}
