import ArgumentParser
import GangwayServices
import GangwayTerminal

/// `gangway admin data`: the app's data, which signed-in devices read (read-only).
struct AdminData: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "data",
        abstract: "List, put or delete the entities of an app's entity set (the demo app's checks).",
        discussion: """
            An app's data is entity sets (the demo app serves its aircraft checks in \
            'checks'), each holding entities with an ID and text fields. Signed-in devices \
            read them; the device app shows the checks on its home screen, fresh at each \
            home screen, or the copy it kept when the server cannot be reached.
            """,
        subcommands: [AdminDataList.self, AdminDataPut.self, AdminDataDelete.self],
        defaultSubcommand: AdminDataList.self
    )
}

struct AdminDataList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the entities of a set (the default)."
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Argument(help: "The entity set.")
    var entitySet = ChecksText.entitySet

    func run() async throws {
        let entitySet = entitySet
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            Console.standardOutput(AdminFormatter.entities(try await admin.entities(app: id, entitySet: entitySet)))
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
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption
    @OptionGroup var entity: EntityTarget

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
            guard fields[name] == nil else { throw ValidationError("the field \(name) is given twice.") }
            fields[name] = String(assignment[assignment.index(after: equals)...])
        }
        return fields
    }

    func run() async throws {
        let (entitySet, entityID, fields) = (entity.entitySet, entity.entityID, try Self.parse(fields))
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
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
            try await admin.deleteEntity(entityID, app: id, entitySet: entitySet)
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
}
