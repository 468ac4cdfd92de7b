import Foundation

/// A user's attributes, by name, each listing values (`stands: ["12", "14"]`): which
/// entities of a set with a subset the user receives. Stored as JSON text in one column.
public struct UserAttributes: Sendable, Hashable, Codable, CustomStringConvertible {
    public var values: [String: [String]]

    public init(_ values: [String: [String]] = [:]) {
        self.values = values.filter { !$0.value.isEmpty }
    }

    /// `stands: 12, 14; teams: ramp`, by name; `none` when there are none.
    public var description: String {
        guard !values.isEmpty else { return "none" }
        return values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.joined(separator: ", "))" }
            .joined(separator: "; ")
    }

    /// The values `attribute` lists, as a set; empty when the user has none.
    public func values(of attribute: String) -> Set<String> { Set(values[attribute] ?? []) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let values = try? JSONDecoder().decode([String: [String]].self, from: Data(text.utf8)) else {
            throw StorageError(.corrupt, "a user's stored attributes could not be read")
        }
        self.init(values)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    /// The JSON text stored, its keys sorted.
    var text: String {
        let json = JSONEncoder()
        json.outputFormatting = .sortedKeys
        return (try? json.encode(values)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

extension UserAttributes: SQLBindable {
    public var sqlValue: SQLValue { .text(text) }
}
