import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayProtocol
import GangwayTerminal

/// `gangway admin data schema`: shows, declares, extends or removes an entity set's schema.
struct AdminDataSchema: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Show or declare an entity set's schema: its fields, their types, which are required and indexed.",
        discussion: """
            Each field is NAME:TYPE, then 'required' (every entity has a value) and \
            'indexed' (devices index it for queries) if so. The types are text, integer, \
            decimal, boolean and date-time (UTC, as 2026-12-03T14:05:00Z); values are \
            text in every type, and the server refuses a write whose fields do not fit. \
            With a schema, an entity holds only the fields it declares.

            --field gives the whole schema, --add appends fields to the one the set has. \
            A change that only adds optional fields, changes indexes, makes a field \
            optional or widens a type (integer to decimal, anything to text) applies at \
            once; any other is checked against every entity of the set, and refused, with \
            the reason, unless all fit. --remove takes the schema away.

            --subset FIELD=ATTRIBUTE sends each user only the entities whose field holds \
            one of the values their attribute lists ('gangway admin users attributes'); \
            --subset none sends everyone all of them.

            Examples:
              gangway admin data schema checks
              gangway admin data schema checks --field stand:text:required:indexed \\
                --field status:text:required:indexed --field due:date-time:indexed
              gangway admin data schema checks --add pressure:decimal
              gangway admin data schema checks --subset stand=stands
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Argument(help: "The entity set.")
    var entitySet = ChecksText.entitySet

    @Option(name: .customLong("field"), help: "A field of the whole schema, as NAME:TYPE[:required][:indexed].")
    var fields: [String] = []

    @Option(name: .customLong("add"), help: "A field to add to the set's schema, as NAME:TYPE[:required][:indexed].")
    var added: [String] = []

    @Option(
        help:
            "Which entities each user receives: FIELD=ATTRIBUTE (those whose field holds one of the user's values of the attribute), or 'none' for all."
    )
    var subset: String?

    @Flag(help: "Remove the set's schema: it takes any fields, as text, again.")
    var remove = false

    @Flag(name: .customLong("new-set"), help: "Declare the schema of a set that holds no entity and has no rules yet.")
    var newSet = false

    @Flag(help: "Print the schema as JSON.")
    var json = false

    func validate() throws {
        try IdentifierArgument.check(entitySet, as: "the entity set")
        guard [!fields.isEmpty, !added.isEmpty, remove].filter({ $0 }).count <= 1 else {
            throw ValidationError("give --field, --add or --remove, one of them.")
        }
        if remove, subset != nil { throw ValidationError("--remove takes no --subset.") }
        _ = try subset.map(Self.subset)
        let declared = try (fields + added).map(Self.field)
        if !fields.isEmpty { _ = try Self.schema(declared) }
    }

    private static func field(_ declaration: String) throws -> EntityField {
        do {
            return try EntityField(declaration: declaration)
        } catch {
            throw ValidationError(error.message)
        }
    }

    private static func schema(_ fields: [EntityField], subset: EntitySubset? = nil) throws -> EntitySchema {
        do {
            return try EntitySchema(fields: fields, subset: subset)
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// `FIELD=ATTRIBUTE`, or `none` (`nil` within: every user receives every entity).
    private static func subset(_ text: String) throws -> EntitySubset? {
        guard text != "none" else { return nil }
        let parts = text.split(separator: "=", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, EntityLimits.isFieldName(parts[0]), EntityLimits.isFieldName(parts[1]) else {
            throw ValidationError(
                "--subset '\(TextRules.shown(text, limit: 64))' is not FIELD=ATTRIBUTE (two names: a letter, then letters, digits and '_') or 'none'."
            )
        }
        return EntitySubset(field: parts[0], attribute: parts[1])
    }

    func run() async throws {
        let (entitySet, json, remove, newSet) = (entitySet, json, remove, newSet)
        let (fields, added) = (try fields.map(Self.field), try added.map(Self.field))
        let newSubset: EntitySubset?? = try subset.map(Self.subset)
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            var schema = try await admin.entitySchema(app: id, entitySet: entitySet)
            let changes = !fields.isEmpty || !added.isEmpty || newSubset != nil
            if (changes && schema == nil && !newSet) || remove,
                try await !AdminDataSetCheck.exists(entitySet, app: id, admin: admin)
            {
                throw CommandFailure(
                    "the app \(id) has no entity set '\(entitySet)'; no schema was "
                        + (remove ? "removed." : "declared. Give --new-set to start it.")
                )
            }
            if remove {
                guard schema != nil else {
                    throw CommandFailure("the set '\(entitySet)' has no schema; nothing was removed.")
                }
                try await admin.deleteEntitySchema(app: id, entitySet: entitySet)
                schema = nil
            } else if changes {
                let whole = fields.isEmpty ? (schema?.fields ?? []) + added : fields
                guard !whole.isEmpty else {
                    throw CommandFailure(
                        "the set '\(entitySet)' has no schema to give a subset: declare its fields with --field."
                    )
                }
                let subset = newSubset ?? schema?.subset
                schema = try await admin.putEntitySchema(
                    try Self.schema(whole, subset: subset),
                    app: id,
                    entitySet: entitySet
                )
            }
            Console.standardOutput(json ? Self.json(entitySet, schema) : Self.text(entitySet, schema))
        }
    }

    static func text(_ entitySet: String, _ schema: EntitySchema?) -> String {
        guard let schema else { return "\(entitySet) has no schema: it takes any fields, as text." }
        let width = schema.fields.map(\.name.count).max() ?? 0
        let typeWidth = schema.fields.map(\.type.rawValue.count).max() ?? 0
        let rows = schema.fields.map { field in
            let flags = [field.required ? "required" : nil, field.indexed ? "indexed" : nil].compactMap { $0 }
            return
                ([
                    field.name.padding(toLength: width, withPad: " ", startingAt: 0),
                    field.type.rawValue.padding(toLength: typeWidth, withPad: " ", startingAt: 0),
                ] + flags)
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        let count = schema.fields.count == 1 ? "1 field" : "\(schema.fields.count) fields"
        let subset =
            schema.subset.map {
                ["Each user receives the entities whose \($0.field) is one of their \($0.attribute)."]
            } ?? []
        return (["\(entitySet): \(count)"] + rows.map { "  " + $0 } + subset).joined(separator: "\n")
    }

    static func json(_ entitySet: String, _ schema: EntitySchema?) -> String {
        let fields: [[String: Any]] = (schema?.fields ?? []).map {
            ["name": $0.name, "type": $0.type.rawValue, "required": $0.required, "indexed": $0.indexed]
        }
        var body: [String: Any] = ["fields": fields]
        if let subset = schema?.subset { body["subset"] = ["field": subset.field, "attribute": subset.attribute] }
        let object: [String: Any] = ["entitySet": entitySet, "schema": schema == nil ? NSNull() : body]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
