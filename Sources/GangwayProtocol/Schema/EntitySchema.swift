/// What the entities of one set hold: named fields, each of a ``FieldType``, required or
/// not, indexed or not. The server checks every write of the set against it (an admin's,
/// a device's change after its merge, any bulk write), and devices build their local
/// store's tables and indexes from it.
///
/// A set without a schema takes any field names with text values, as before schemas.
/// With one, an entity holds only the fields it declares.
public struct EntitySchema: Sendable, Hashable, Codable {
    /// The fields, in the order the admin declared them.
    public private(set) var fields: [EntityField]
    /// Which entities each user receives; `nil`: every user receives every entity.
    public private(set) var subset: EntitySubset?

    /// - Throws: ``EntitySchemaError/Code/invalidSchema`` when a name is not a field name
    ///   or is declared twice, a type is not one this version knows, there are no fields
    ///   or more than ``EntityLimits/fieldsPerEntity``, more than
    ///   ``EntityLimits/indexedFieldsPerSet`` are indexed, or the subset's field is not
    ///   a text or integer field of the schema, or its attribute is not a name.
    public init(fields: [EntityField], subset: EntitySubset? = nil) throws(EntitySchemaError) {
        guard (1...EntityLimits.fieldsPerEntity).contains(fields.count) else {
            throw Self.invalid("A schema declares 1 to \(EntityLimits.fieldsPerEntity) fields.")
        }
        var seen: Set<String> = []
        for field in fields {
            guard EntityLimits.isFieldName(field.name) else {
                throw Self.invalid(
                    "A field's name is 1 to \(EntityLimits.fieldNameLength.upperBound) letters, digits and '_', a letter first."
                )
            }
            guard seen.insert(field.name).inserted else {
                throw Self.invalid("The field \(field.name) is declared twice.", field.name)
            }
            guard FieldType.known.contains(field.type) else {
                throw Self.invalid(
                    "The field \(field.name) has no known type: use one of \(FieldType.known.map(\.rawValue).joined(separator: ", ")).",
                    field.name
                )
            }
        }
        let indexed = fields.filter(\.indexed).count
        guard indexed <= EntityLimits.indexedFieldsPerSet else {
            throw Self.invalid("A schema indexes at most \(EntityLimits.indexedFieldsPerSet) fields.")
        }
        if let subset {
            guard let field = fields.first(where: { $0.name == subset.field }), [.text, .integer].contains(field.type)
            else {
                throw Self.invalid(
                    "A subset's field is a text or integer field of the schema; \(subset.field) is not.",
                    subset.field
                )
            }
            guard EntityLimits.isFieldName(subset.attribute) else {
                throw Self.invalid("A subset's attribute is a letter, then letters, digits and '_'.")
            }
        }
        self.fields = fields
        self.subset = subset
    }

    private enum CodingKeys: String, CodingKey { case fields, subset }

    /// Reads a schema and checks it as ``init(fields:subset:)`` does.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            fields: try container.decode([EntityField].self, forKey: .fields),
            subset: try container.decodeIfPresent(EntitySubset.self, forKey: .subset)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(fields, forKey: .fields)
        try container.encodeIfPresent(subset, forKey: .subset)
    }

    /// The field named `name`, if the schema declares it.
    public func field(named name: String) -> EntityField? { fields.first { $0.name == name } }

    /// Checks an entity's fields, all of them, against the schema: each is declared, each
    /// value not empty is of its field's type, and each required field has a value.
    /// - Throws: ``EntitySchemaError/Code/fieldNotValid``, naming the first field that
    ///   does not fit.
    public func check(_ values: [String: String], in entitySet: String) throws(EntitySchemaError) {
        try checkValues(values, in: entitySet)
        for field in fields where field.required && (values[field.name] ?? "").isEmpty {
            throw Self.notValid("\(field.name) is required in \(entitySet).", field.name)
        }
    }

    /// Checks some of an entity's fields, as a change sets them: each is declared, and
    /// each value not empty is of its field's type. What the entity's other fields hold
    /// is not looked at; a change that empties a required field is refused here.
    /// - Throws: ``EntitySchemaError/Code/fieldNotValid``, naming the first field that
    ///   does not fit.
    public func checkValues(_ values: [String: String], in entitySet: String) throws(EntitySchemaError) {
        // Nearly every entity fits: checked in any order first (an ingest checks a million),
        // and in name order only to name the first field that does not.
        let fits = values.allSatisfy { name, value in
            guard let field = field(named: name) else { return false }
            return value.isEmpty ? !field.required : field.type.accepts(value)
        }
        if fits { return }
        for name in values.keys.sorted() {
            guard let field = field(named: name) else {
                throw Self.notValid("\(name) is not a field of \(entitySet).", name)
            }
            guard let value = values[name], !value.isEmpty else {
                if field.required { throw Self.notValid("\(name) is required in \(entitySet).", name) }
                continue
            }
            guard field.type.accepts(value) else {
                throw Self.notValid("\(name) in \(entitySet) is \(field.type.expected).", name)
            }
        }
    }

    /// Whether every entity that fits `old` fits this schema too, so the change from
    /// `old` needs no look at the set's entities: it only adds optional fields, changes
    /// indexes, lets a required field go empty, or widens a type (``FieldType/isWidened(to:)``).
    /// A set that had no schema may hold anything, so a first schema is never such a change.
    public func keepsEveryEntity(of old: EntitySchema?) -> Bool {
        guard let old else { return false }
        for field in old.fields {
            guard let now = self.field(named: field.name), field.type.isWidened(to: now.type),
                field.required || !now.required
            else { return false }
        }
        return fields.allSatisfy { !$0.required || old.field(named: $0.name) != nil }
    }

    private static func invalid(_ message: String, _ field: String? = nil) -> EntitySchemaError {
        EntitySchemaError(.invalidSchema, message, fields: field.map { [$0] } ?? [])
    }

    private static func notValid(_ message: String, _ field: String) -> EntitySchemaError {
        EntitySchemaError(.fieldNotValid, message, fields: [field])
    }
}
