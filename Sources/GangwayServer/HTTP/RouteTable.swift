import Foundation

/// The paths and methods the API document declares, to tell "no such route" (404) from
/// "not with this method" (405 with `Allow`), and the routes whose request body streams.
struct RouteTable: Sendable {
    private var routes: [(segments: [Substring?], methods: [String])] = []
    /// The paths as a tree, for ``template(for:)``.
    private var templates = RouteTemplates([])
    /// The routes whose body the handler reads as it streams (``streamedMediaType``).
    private var streamed: [(segments: [Substring?], method: String)] = []
    /// `METHOD template` of each route whose body streams, as the generated server
    /// registers it (``RouterTransport``).
    private(set) var streamedTemplates: Set<String> = []

    /// A request body of this type streams to its handler, past the gateway's body limit,
    /// which the handler applies as it reads (an ingest batch).
    static let streamedMediaType = "application/x-ndjson"

    /// Reads the `paths` of an OpenAPI document; `{name}` segments match any value.
    init(document: Data, extra: [String: [String]] = [:]) throws {
        guard let root = try JSONSerialization.jsonObject(with: document) as? [String: Any],
            let paths = root["paths"] as? [String: [String: Any]]
        else { throw CocoaError(.coderReadCorrupt) }
        var all = paths.mapValues { Array($0.keys) }
        all.merge(extra) { $0 + $1 }
        for (path, methods) in all.sorted(by: { $0.key < $1.key }) {
            routes.append((Self.segments(of: path), methods.map { $0.uppercased() }.sorted()))
        }
        templates = RouteTemplates(all.keys)
        for (path, operations) in paths.sorted(by: { $0.key < $1.key }) {
            for (method, operation) in operations {
                guard let body = (operation as? [String: Any])?["requestBody"] as? [String: Any],
                    let content = body["content"] as? [String: Any], Array(content.keys) == [Self.streamedMediaType]
                else { continue }
                streamed.append((Self.segments(of: path), method.uppercased()))
                streamedTemplates.insert("\(method.uppercased()) \(path)")
            }
        }
    }

    private static func segments(of path: String) -> [Substring?] {
        path.split(separator: "/").map { $0.hasPrefix("{") ? nil : $0 }
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

    /// The template of the route `path` goes to (`/apps/{appID}/sessions`), a fixed
    /// segment preferred to a parameter at each step; `nil` when none. A label for the
    /// operator's figures: one of the document's paths, never what the caller sent.
    func template(for path: String) -> String? {
        templates.template(for: path)
    }

    /// Whether a request of `method` to `path` goes to a route whose body streams.
    func streamsBody(method: String, path: String) -> Bool {
        guard !streamed.isEmpty else { return false }
        let parts = path.split(separator: "/")
        return streamed.contains { route in
            route.method == method && route.segments.count == parts.count
                && zip(route.segments, parts).allSatisfy { $0 == nil || $0 == $1 }
        }
    }
}
