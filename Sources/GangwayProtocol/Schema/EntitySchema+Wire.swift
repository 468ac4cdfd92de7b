extension EntitySchema {
    /// The schema a wire body states, checked as ``init(fields:subset:)`` checks it.
    public init(_ wire: Components.Schemas.EntitySchema) throws(EntitySchemaError) {
        try self.init(
            fields: wire.fields.map {
                EntityField(
                    $0.name,
                    FieldType(rawValue: $0._type.rawValue),
                    required: $0.required ?? false,
                    indexed: $0.indexed ?? false
                )
            },
            subset: wire.subset.map { EntitySubset(field: $0.field, attribute: $0.attribute) }
        )
    }
}

extension Components.Schemas.EntitySchema {
    public init(_ schema: EntitySchema) {
        self.init(schema.fields, subset: schema.subset)
    }

    /// The wire body of a schema of `fields`, as given: the server checks it.
    public init(_ fields: [EntityField], subset: EntitySubset? = nil) {
        self.init(
            fields: fields.map { field in
                .init(
                    name: field.name,
                    _type: .init(rawValue: field.type.rawValue) ?? .text,
                    required: field.required,
                    indexed: field.indexed
                )
            },
            subset: subset.map { .init(field: $0.field, attribute: $0.attribute) }
        )
    }
}
