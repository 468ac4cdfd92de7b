import Foundation

/// A console page's query as a browser sends a form with `method="get"`
/// (`application/x-www-form-urlencoded`): a `+` is a space, then percent-escapes decode.
/// Hummingbird's own reading decodes escapes only, so a search for "Alice Martin" would
/// look for "Alice+Martin". The pages' own links write a `+` as `%2B` (``path(_:_:)``).
public struct ConsoleQuery: Sendable {
    private let values: [String: String]

    /// The fields of `query`, the part of the address after `?` as the browser sent it.
    public init(query: String?) {
        var values: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String? {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decoded(parts[0]) else { continue }
            // The first of two fields of one name, as the API's own reading takes it.
            if values[name] == nil { values[name] = parts.count == 2 ? decoded(parts[1]) : "" }
        }
        self.values = values
    }

    /// The value of the field `name`; `nil` when the query has none, or its escapes do not
    /// decode to UTF-8 text.
    public func get(_ name: String) -> String? { values[name] }

    /// `path` with `items` as its query (those with an empty value left out), each value's
    /// `+` written `%2B`, so that the page reads back what it wrote.
    public static func path(_ path: String, _ items: [(String, String)]) -> String {
        var components = URLComponents()
        components.path = path
        let kept = items.filter { !$0.1.isEmpty }.map { URLQueryItem(name: $0.0, value: $0.1) }
        components.queryItems = kept.isEmpty ? nil : kept
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string ?? path
    }
}
