/// The API document's paths as a tree of segments, for finding the template a request's
/// path goes to (``RouteTable/template(for:)``) in a few dictionary look-ups, whatever the
/// number of routes: every request is labelled by it when the server records metrics.
/// A fixed segment is preferred to a parameter at each step, as a router does.
struct RouteTemplates: Sendable {
    /// One segment's place in the tree; built once, never changed after.
    private final class Node: @unchecked Sendable {
        var fixed: [Substring: Node] = [:]
        var parameter: Node?
        var template: String?
    }

    private let root = Node()

    init(_ templates: some Sequence<String>) {
        for template in templates {
            var node = root
            for segment in template.split(separator: "/") {
                if segment.hasPrefix("{") {
                    if node.parameter == nil { node.parameter = Node() }
                    node = node.parameter!
                } else {
                    if node.fixed[segment] == nil { node.fixed[segment] = Node() }
                    node = node.fixed[segment]!
                }
            }
            node.template = template
        }
    }

    /// The template `path` goes to, or `nil`.
    func template(for path: String) -> String? {
        Self.find(path.split(separator: "/")[...], in: root)
    }

    private static func find(_ segments: ArraySlice<Substring>, in node: Node) -> String? {
        guard let segment = segments.first else { return node.template }
        if let next = node.fixed[segment], let found = find(segments.dropFirst(), in: next) { return found }
        if let next = node.parameter { return find(segments.dropFirst(), in: next) }
        return nil
    }
}
