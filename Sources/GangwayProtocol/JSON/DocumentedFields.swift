import Foundation

/// The fields an admin operation's JSON body may hold, read from the API document, at
/// every depth: a key that the schema at its place does not name is a mistake to say, not
/// to pass over (`settings.passwordPolicy.passwordPolicyMinLenght` would otherwise be
/// answered 200 with nothing changed).
///
/// An object whose schema names its properties takes those alone, unless the schema
/// gives `additionalProperties` a schema (a map, such as an app's entity sets). The
/// document says so of admin bodies; the server checks them (its `AccessGate`), not
/// devices' bodies, so that a newer device's field reaches an older server harmlessly.
public struct DocumentedFields: Sendable {
    /// What a place in a body may hold.
    public indirect enum Shape: Sendable {
        /// An object: the properties it names, and the schema of any other key's value
        /// when it takes others (`nil`: it takes no others).
        case object(properties: [String: Shape], others: Shape?)
        case array(of: Shape)
        /// A value this check does not look into (a scalar, or a schema of alternatives).
        case any
    }

    /// The shape of each operation's body, by operation ID.
    public let bodies: [String: Shape]

    /// The JSON bodies of `operations` as `document` states them.
    public init(document root: [String: Any], operations: Set<String>) {
        let schemas = (root["components"] as? [String: Any])?["schemas"] as? [String: Any] ?? [:]
        var bodies: [String: Shape] = [:]
        for operation in ((root["paths"] as? [String: [String: Any]]) ?? [:]).values.flatMap(\.values) {
            guard let operation = operation as? [String: Any], let id = operation["operationId"] as? String,
                operations.contains(id),
                let content = (operation["requestBody"] as? [String: Any])?["content"] as? [String: Any],
                let schema = (content["application/json"] as? [String: Any])?["schema"]
            else { continue }
            bodies[id] = Self.shape(of: schema, schemas: schemas, depth: 0)
        }
        self.bodies = bodies
    }

    /// The first key of `body` (the JSON of operation `operationID`) that its schema does
    /// not name, as a dotted path (`settings.passwordPolicy.x`); `nil` when there is none,
    /// or when the body is not JSON (the decoder then says what is wrong with it).
    public func unknownField(in body: Data, operationID: String) -> String? {
        guard let shape = bodies[operationID],
            let value = try? JSONSerialization.jsonObject(with: body, options: .fragmentsAllowed)
        else { return nil }
        return Self.unknown(in: value, shape, path: [])
    }

    private static func unknown(in value: Any, _ shape: Shape, path: [String]) -> String? {
        switch (shape, value) {
        case (.object(let properties, let others), let object as [String: Any]):
            for key in object.keys.sorted() {
                guard let child = properties[key] ?? others else { return (path + [key]).joined(separator: ".") }
                if let found = unknown(in: object[key] as Any, child, path: path + [key]) { return found }
            }
        case (.array(let element), let array as [Any]):
            for (index, item) in array.enumerated() {
                if let found = unknown(in: item, element, path: path + [String(index)]) { return found }
            }
        default:
            break
        }
        return nil
    }

    private static func shape(of node: Any, schemas: [String: Any], depth: Int) -> Shape {
        guard depth < 32, var node = node as? [String: Any] else { return .any }
        if let reference = node["$ref"] as? String {
            let name = String(reference.split(separator: "/").last ?? "")
            guard let target = schemas[name] as? [String: Any] else { return .any }
            node = target
        }
        if let items = node["items"] {
            return .array(of: shape(of: items, schemas: schemas, depth: depth + 1))
        }
        let properties = node["properties"] as? [String: Any]
        let additional = node["additionalProperties"]
        if properties == nil, !(additional is [String: Any]) { return .any }
        let others: Shape? =
            if let additional = additional as? [String: Any] {
                shape(of: additional, schemas: schemas, depth: depth + 1)
            } else if (additional as? Bool) == true {
                .any
            } else {
                nil
            }
        return .object(
            properties: (properties ?? [:]).mapValues { shape(of: $0, schemas: schemas, depth: depth + 1) },
            others: others
        )
    }
}
