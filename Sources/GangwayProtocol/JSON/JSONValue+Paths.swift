import Foundation
import GangwayPolicy

extension JSONValue {
    /// The scalars of `value`'s JSON by their dotted paths (`passwordPolicy.minLength`), an
    /// array as one value (`[a.example, b.example]`) and a null as `none`: what the audit
    /// compares to say which settings changed. Empty when `value` does not encode.
    public static func paths(of value: some Encodable) -> [String: String] {
        guard let data = try? JSONEncoder().encode(value), let root = try? JSONDecoder().decode(Self.self, from: data)
        else { return [:] }
        var result: [String: String] = [:]
        func walk(_ node: Self, _ path: String) {
            if case .object(let object) = node {
                for (key, child) in object { walk(child, path.isEmpty ? key : "\(path).\(key)") }
            } else {
                result[path] = node.text
            }
        }
        walk(root, "")
        return result
    }

    /// The value as a person reads it in one line.
    public var text: String {
        switch self {
        case .null: "none"
        case .bool(let value): String(value)
        case .integer(let value): String(value)
        case .number(let value): String(value)
        case .string(let value): value
        case .array(let values): "[" + values.map(\.text).joined(separator: ", ") + "]"
        case .object(let object):
            "{" + object.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.text)" }.joined(separator: ", ") + "}"
        }
    }
}
