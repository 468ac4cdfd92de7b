import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayProtocol
import GangwayServices
import GangwayTerminal

/// `gangway admin data`: the app's data, which signed-in devices read, and change where
/// the app lets them.
struct AdminData: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "data",
        abstract: "The app's data: its entities, what devices may change, and the changes they sent.",
        discussion: """
            An app's data is entity sets (the demo app serves its aircraft checks in \
            'checks'), each holding entities with an ID and fields, of the types its \
            schema declares ('schema'), or text. Signed-in devices \
            read them; the device app shows the checks on its home screen, fresh at each \
            home screen, or the copy it kept when the server cannot be reached. 'import' \
            writes a CSV or NDJSON file of entities in bulk; 'source' fills a set from the \
            company's OData service, and 'pull' reads it now. Devices may also send changes \
            to the fields 'fields' allows; 'changes' and 'conflicts' show what they sent \
            and how each change ended.
            """,
        subcommands: [
            AdminDataList.self, AdminDataPut.self, AdminDataDelete.self, AdminDataImport.self, AdminDataSource.self,
            AdminDataPull.self, AdminDataDeliveries.self, AdminDataSchema.self,
            AdminDataFields.self, AdminDataRetention.self, AdminDataChanges.self, AdminDataConflicts.self,
        ],
        defaultSubcommand: AdminDataList.self
    )
}

struct AdminDataList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the entities of a set (the default), a page at a time.",
        discussion: """
            A set exists once it holds an entity, has rules (data fields) or a schema: any other name \
            is an error, as a mistyped one is. A page lists 100 entities by ID unless --limit \
            says otherwise; when more follow, the command says how to list the next page \
            (--after the last ID listed).
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Argument(help: "The entity set.")
    var entitySet = ChecksText.entitySet

    @Option(help: "List the entities whose IDs come after this one (the last ID of the page before).")
    var after: String?

    @OptionGroup var limit: ListLimitOption

    @Flag(help: "Print the entities as JSON: ID, version, fields, when and by whom last changed.")
    var json = false

    func validate() throws {
        try IdentifierArgument.check(entitySet, as: "the entity set")
        if let after { try IdentifierArgument.check(after, as: "--after") }
    }

    func run() async throws {
        let (entitySet, json, after, limit) = (entitySet, json, after, limit.value)
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            let (entities, more) = try await admin.entities(app: id, entitySet: entitySet, after: after, limit: limit)
            // An empty set is one the app's rules or schemas name; any other name is a typo.
            if entities.isEmpty, after == nil, try await !AdminDataSetCheck.exists(entitySet, app: id, admin: admin) {
                throw CommandFailure("the app \(id) has no entity set '\(entitySet)'.")
            }
            Console.standardOutput(json ? AdminFormatter.json(entities) : AdminFormatter.entities(entities))
            if more, let last = entities.last {
                let next = "More follow: gangway admin data list \(entitySet) --after \(last.id)"
                if json { Console.standardError(next) } else { Console.standardOutput(next) }
            }
        }
    }
}

struct AdminDataPut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Create an entity, or replace all its fields.",
        discussion: """
            Example: gangway admin data put checks F-GKXA-fuel aircraft="A320 F-GKXA" \
            stand=12 item="fuel level" status=done reading="8200 kg"

            An entity set exists once it holds an entity: putting the first one into a set \
            the app does not have yet needs --new-set, so a mistyped set name is an error, \
            not a new set.
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption
    @OptionGroup var entity: EntityTarget

    @Flag(name: .customLong("new-set"), help: "Start a new entity set with this entity.")
    var newSet = false

    @Argument(help: "The fields, as NAME=VALUE; fields not given are removed.")
    var fields: [String] = []

    func validate() throws {
        _ = try Self.parse(fields)
    }

    static func parse(_ assignments: [String]) throws -> [String: String] {
        var fields: [String: String] = [:]
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw ValidationError("'\(assignment.prefix(64))' is not NAME=VALUE.")
            }
            let name = String(assignment[..<equals])
            guard EntityLimits.isFieldName(name) else {
                throw ValidationError(
                    "'\(TextRules.shown(name, limit: 64))' is not a field name (a letter, then letters, digits and '_')."
                )
            }
            guard fields[name] == nil else { throw ValidationError("the field \(name) is given twice.") }
            fields[name] = String(assignment[assignment.index(after: equals)...])
        }
        return fields
    }

    func run() async throws {
        let (entitySet, entityID, fields) = (entity.entitySet, entity.entityID, try Self.parse(fields))
        let newSet = newSet
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            let exists = try await !admin.entities(app: id, entitySet: entitySet, limit: 1).entities.isEmpty
            // A set whose schema is declared is there to be filled.
            if !exists, !newSet, try await admin.entitySchema(app: id, entitySet: entitySet) == nil {
                throw CommandFailure(
                    "the app \(id) has no entity set '\(entitySet)'; nothing was put. Give --new-set to start it."
                )
            }
            if exists, newSet {
                throw CommandFailure("the app \(id) has an entity set '\(entitySet)' already; nothing was put.")
            }
            let entity = try await admin.putEntity(entityID, fields: fields, app: id, entitySet: entitySet)
            Console.standardOutput(
                "\(entitySet)/\(entity.id) is at version \(entity.version); devices read it at their next home screen."
            )
        }
    }
}

struct AdminDataDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an entity."
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption
    @OptionGroup var entity: EntityTarget

    func run() async throws {
        let (entitySet, entityID) = (entity.entitySet, entity.entityID)
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            do {
                try await admin.deleteEntity(entityID, app: id, entitySet: entitySet)
            } catch let error as ServiceError where error == .notFound {
                // Which is missing: the entity, or the whole set (a typo in its name).
                if try await !AdminDataSetCheck.exists(entitySet, app: id, admin: admin) {
                    throw CommandFailure("the app \(id) has no entity set '\(entitySet)'; nothing was deleted.")
                }
                throw CommandFailure("the set '\(entitySet)' has no entity '\(entityID)'; nothing was deleted.")
            }
            Console.standardOutput("\(entitySet)/\(entityID) is deleted.")
        }
    }
}

/// The entity an admin command puts or deletes: its set and its ID.
struct EntityTarget: ParsableArguments {
    @Argument(help: "The entity set.")
    var entitySet: String

    @Argument(help: "The entity's ID: letters, digits, '.', '_' and '-'.")
    var entityID: String

    func validate() throws {
        try IdentifierArgument.check(entitySet, as: "the entity set")
        try IdentifierArgument.check(entityID, as: "the entity ID")
    }
}

struct AdminDataFields: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fields",
        abstract: "Show or set which fields of a set devices may change offline.",
        discussion: """
            With no field, shows the set's rules. With fields, devices may set those and \
            no other (the server refuses a change to any other field). --creation lets \
            devices create entities in the set; --clear takes every right away. A set \
            without rules takes no changes from devices. Rules for a set that holds no \
            entity and has no rules yet need --new-set, so a mistyped set name is an error.
            Example: gangway admin data fields checks status reading note
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Argument(help: "The entity set.")
    var entitySet = ChecksText.entitySet

    @Argument(help: "The fields devices may set: a letter, then letters, digits and '_'.")
    var fields: [String] = []

    @Flag(inversion: .prefixedNo, help: "Whether devices may create entities in the set.")
    var creation: Bool?

    @Flag(help: "Remove the set's rules: devices may change nothing in it.")
    var clear = false

    @Flag(name: .customLong("new-set"), help: "Set rules for a set that holds no entity and has no rules yet.")
    var newSet = false

    @Flag(help: "Print the rules as JSON.")
    var json = false

    func validate() throws {
        try IdentifierArgument.check(entitySet, as: "the entity set")
        if let bad = fields.first(where: { !EntityLimits.isFieldName($0) }) {
            throw ValidationError("'\(bad.prefix(64))' is not a field name (a letter, then letters, digits and '_').")
        }
        guard Set(fields).count == fields.count else { throw ValidationError("a field is given twice.") }
        guard fields.count <= EntityLimits.fieldsPerEntity else {
            throw ValidationError("a set has at most \(EntityLimits.fieldsPerEntity) fields.")
        }
        if clear, !fields.isEmpty || creation != nil {
            throw ValidationError("--clear takes no field and no --creation.")
        }
    }

    func run() async throws {
        let (entitySet, fields, creation, clear, json, newSet) = (entitySet, fields, creation, clear, json, newSet)
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            var rules = try await admin.app(id).settings.entitySetRules?[entitySet]
            // A mistyped set name is an error, as for `data put`, not rules for a new set.
            if !fields.isEmpty || creation != nil, rules == nil, !newSet,
                try await admin.entities(app: id, entitySet: entitySet, limit: 1).entities.isEmpty
            {
                throw CommandFailure(
                    "the app \(id) has no entity set '\(entitySet)'; no rule was set. Give --new-set to start it."
                )
            }
            if clear || !fields.isEmpty || creation != nil {
                let current = rules ?? EntitySetRules(writableFields: [])
                let updated =
                    clear
                    ? EntitySetRules(writableFields: [])
                    : EntitySetRules(
                        writableFields: fields.isEmpty ? current.writableFields : Set(fields),
                        allowsCreation: creation ?? current.allowsCreation
                    )
                let app = try await admin.updateApp(id, AppChange(entitySetRules: [entitySet: updated]))
                rules = app.settings.entitySetRules?[entitySet]
            }
            Console.standardOutput(json ? Self.json(entitySet, rules) : Self.text(entitySet, rules))
        }
    }

    static func text(_ entitySet: String, _ rules: EntitySetRules?) -> String {
        guard let rules else { return "\(entitySet): devices may change nothing." }
        let fields = rules.writableFields.sorted().joined(separator: ", ")
        let creation = rules.allowsCreation ? "may" : "may not"
        return
            "\(entitySet): devices may set \(fields.isEmpty ? "no field" : fields); they \(creation) create entities."
    }

    static func json(_ entitySet: String, _ rules: EntitySetRules?) -> String {
        let object: [String: Any] = [
            "entitySet": entitySet,
            "writableFields": (rules?.writableFields ?? []).sorted(),
            "allowsCreation": rules?.allowsCreation ?? false,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

struct AdminDataChanges: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "List the changes devices uploaded, newest first: who made each, who carried it, how it ended.",
        discussion: """
            The carrier is the user whose session uploaded the change: its author, or the \
            next user of a shared device, who carries the previous users' pending changes \
            as theirs.
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Option(help: "Only the changes that ended so: applied, conflict or rejected.")
    var outcome: Outcome?

    @OptionGroup var limit: ListLimitOption

    @Flag(help: "Print the changes as JSON.")
    var json = false

    enum Outcome: String, ExpressibleByArgument, CaseIterable {
        case applied, conflict, rejected
    }

    func run() async throws {
        let (outcome, limit, json) = (
            outcome.flatMap { ChangeResult.Outcome(rawValue: $0.rawValue) }, limit.value ?? APIDefaults.listLimit, json
        )
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            let changes = try await admin.changes(app: id, outcome: outcome, limit: limit)
            Console.standardOutput(json ? AdminFormatter.json(changes) : AdminFormatter.changes(changes))
        }
    }
}

struct AdminDataConflicts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "List the conflict records: fields a device changed that someone else changed first.",
        discussion: """
            The server kept its value of each field listed; the device's value is what the \
            author set. The author sees the same record at their next session.
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Flag(help: "Print the conflicting changes as JSON.")
    var json = false

    func run() async throws {
        let json = json
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            let changes = try await admin.changes(app: id, outcome: .conflict, limit: 1000)
            Console.standardOutput(json ? AdminFormatter.json(changes) : AdminFormatter.conflicts(changes))
        }
    }
}

/// Whether an app has an entity set: it holds an entity, or has rules, or a schema. Any
/// other name a command is given is a typo, not a new set.
enum AdminDataSetCheck {
    static func exists(_ entitySet: String, app id: String, admin: AdminClient) async throws -> Bool {
        if try await !admin.entities(app: id, entitySet: entitySet, limit: 1).entities.isEmpty { return true }
        if try await admin.app(id).settings.entitySetRules?[entitySet] != nil { return true }
        return try await admin.entitySchema(app: id, entitySet: entitySet) != nil
    }
}
