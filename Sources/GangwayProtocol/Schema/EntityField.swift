/// One field of an entity set's ``EntitySchema``.
public struct EntityField: Sendable, Hashable, Codable {
    /// The field's name: a letter, then letters, digits and `_` (``EntityLimits/isFieldName(_:)``).
    public var name: String
    public var type: FieldType
    /// Whether every entity of the set has a value (not empty) for the field.
    public var required: Bool
    /// Whether devices index the field in their local store, for queries that filter or
    /// sort by it.
    public var indexed: Bool

    public init(_ name: String, _ type: FieldType, required: Bool = false, indexed: Bool = false) {
        self.name = name
        self.type = type
        self.required = required
        self.indexed = indexed
    }

    private enum CodingKeys: String, CodingKey { case name, type, required, indexed }

    /// Reads a field as the API document writes it: `required` and `indexed` false when
    /// left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        type = try container.decode(FieldType.self, forKey: .type)
        required = try container.decodeIfPresent(Bool.self, forKey: .required) ?? false
        indexed = try container.decodeIfPresent(Bool.self, forKey: .indexed) ?? false
    }

    /// Reads a field from one word, as ``declaration`` writes it: `status:text:required`,
    /// `due:date-time:indexed`; the flags in any order.
    /// - Throws: ``EntitySchemaError/Code/invalidSchema``, saying what is wrong.
    public init(declaration: String) throws(EntitySchemaError) {
        let parts = declaration.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let shown = TextRules.shown(declaration, limit: 80)
        guard parts.count >= 2, EntityLimits.isFieldName(parts[0]) else {
            throw EntitySchemaError(
                .invalidSchema,
                "'\(shown)' is not NAME:TYPE[:required][:indexed], a name being a letter, then letters, digits and '_'."
            )
        }
        let type = FieldType(rawValue: parts[1])
        guard FieldType.known.contains(type) else {
            throw EntitySchemaError(
                .invalidSchema,
                "'\(TextRules.shown(parts[1], limit: 40))' is not a field type: use one of \(FieldType.known.map(\.rawValue).joined(separator: ", ")).",
                fields: [parts[0]]
            )
        }
        var flags = Set<String>()
        for flag in parts.dropFirst(2) {
            guard ["required", "indexed"].contains(flag), flags.insert(flag).inserted else {
                throw EntitySchemaError(
                    .invalidSchema,
                    "'\(shown)' ends in '\(TextRules.shown(flag, limit: 40))': after the type come only 'required' and 'indexed', each once.",
                    fields: [parts[0]]
                )
            }
        }
        self.init(parts[0], type, required: flags.contains("required"), indexed: flags.contains("indexed"))
    }

    /// The field as one word of `gangway admin data schema --field`:
    /// `NAME:TYPE[:required][:indexed]`.
    public var declaration: String {
        ([name, type.rawValue] + (required ? ["required"] : []) + (indexed ? ["indexed"] : []))
            .joined(separator: ":")
    }
}
