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

            Examples:
              gangway admin data schema checks
              gangway admin data schema checks --field stand:text:required:indexed \\
                --field status:text:required:indexed --field due:date-time:indexed
              gangway admin data schema checks --add pressure:decimal
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

    private static func schema(_ fields: [EntityField]) throws -> EntitySchema {
        do {
            return try EntitySchema(fields: fields)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        let (entitySet, json, remove, newSet) = (entitySet, json, remove, newSet)
        let (fields, added) = (try fields.map(Self.field), try added.map(Self.field))
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            var schema = try await admin.entitySchema(app: id, entitySet: entitySet)
            let changes = !fields.isEmpty || !added.isEmpty
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
                schema = try await admin.putEntitySchema(try Self.schema(whole), app: id, entitySet: entitySet)
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
        return (["\(entitySet): \(count)"] + rows.map { "  " + $0 }).joined(separator: "\n")
    }

    static func json(_ entitySet: String, _ schema: EntitySchema?) -> String {
        let fields: [[String: Any]] = (schema?.fields ?? []).map {
            ["name": $0.name, "type": $0.type.rawValue, "required": $0.required, "indexed": $0.indexed]
        }
        let object: [String: Any] = ["entitySet": entitySet, "schema": schema == nil ? NSNull() : ["fields": fields]]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
