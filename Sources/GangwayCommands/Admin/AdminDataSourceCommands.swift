import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayProtocol
import GangwayServices
import GangwayTerminal

/// `gangway admin data source`: entity sets filled from the company's OData services.
struct AdminDataSource: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "source",
        abstract: "Show, set and remove where entity sets fill themselves from: a company's OData v4 service.",
        discussion: """
            A set with a data source is read from PATH of one of the app's destinations \
            (an OData v4 JSON service): whole the first time, following its next links, then \
            only what changed since, by the delta link the service gave; every --every and \
            whenever asked ('gangway admin data pull'). A delta link the service refuses \
            makes the read a full one, which also removes the entities the service no longer \
            has. What a device changed since the service's last version is kept, field by \
            field; the service's other changes come in. The service sees the server itself: \
            a token for gangway:data-source (identity destinations) or the destination's \
            credential.
            """,
        subcommands: [AdminDataSourceList.self, AdminDataSourceSet.self, AdminDataSourceRemove.self],
        defaultSubcommand: AdminDataSourceList.self
    )
}

struct AdminDataSourceList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the app's data sources, or show one set's with its last read (the default)."
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Argument(help: "An entity set: show its source in full, with the rows its last read refused.")
    var entitySet: String?

    @Flag(help: "Print them as JSON.")
    var json = false

    func validate() throws {
        if let entitySet { try IdentifierArgument.check(entitySet, as: "the entity set") }
    }

    func run() async throws {
        let (entitySet, json) = (entitySet, json)
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            guard let entitySet else {
                let sources = try await admin.dataSources(app: id)
                Console.standardOutput(json ? AdminFormatter.json(sources) : AdminFormatter.dataSources(sources))
                return
            }
            guard let source = try await admin.dataSource(entitySet, app: id) else {
                throw CommandFailure("the set '\(entitySet)' of the app \(id) has no data source.")
            }
            Console.standardOutput(json ? AdminFormatter.json(source) : AdminFormatter.dataSource(source))
        }
    }
}

struct AdminDataSourceSet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Fill an entity set from an OData service, or change where from.",
        discussion: """
            Example: gangway admin data source set checks --destination erp --path /Checks \
            --key ID --every 15m

            The destination must exist ('gangway admin destinations add'). A new source is \
            read at once; one that now reads another destination, path or key is read \
            whole next.
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Argument(help: "The entity set to fill.")
    var entitySet: String

    @Option(help: "The app's destination to read through.")
    var destination: String

    @Option(help: "The OData entity set's path under the destination's URL, from '/' (/Checks).")
    var path: String

    @Option(name: .customLong("key"), help: "The property that is each entity's ID (default: ID).")
    var keyProperty: String?

    @Option(
        help: """
            How often to read it: seconds, or with m, h or d (15m, 1h, 1d), from 1m to 7d; left out, only when asked.
            """
    )
    var every: String?

    @Flag(
        help: """
            Send devices' changes to the set to the service, as their authors, once each: the service decides \
            them, and its refusals reach the authors' devices.
            """
    )
    var deliverChanges = false

    func validate() throws {
        try IdentifierArgument.check(entitySet, as: "the entity set")
        try IdentifierArgument.check(destination, as: "--destination")
        if let keyProperty, !EntityLimits.isFieldName(keyProperty) {
            throw ValidationError(
                "--key '\(TextRules.shown(keyProperty, limit: 64))' is not a property name (a letter, then letters, "
                    + "digits and '_')."
            )
        }
        _ = try Self.seconds(every)
    }

    /// `--every` in seconds: `90`, `15m`, `2h`, `1d`, within the API's range.
    static func seconds(_ text: String?) throws -> Int? {
        guard let text else { return nil }
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        let (digits, unit) =
            if let unit = text.last.flatMap({ units[$0] }) { (text.dropLast(), unit) } else { (Substring(text), 1) }
        let range = APILimits.dataSourceEverySeconds
        guard let value = Int(digits), value > 0, value <= range.upperBound / unit, range.contains(value * unit) else {
            throw ValidationError(
                "--every '\(TextRules.shown(text, limit: 32))' is not a time from 1m to 7d (as 90, 15m, 2h or 1d)."
            )
        }
        return value * unit
    }

    func run() async throws {
        let (entitySet, destination, path, keyProperty, delivers) = (
            entitySet, destination, path, keyProperty, deliverChanges
        )
        let every = try Self.seconds(every)
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            let source: ManagedDataSource
            let isNew: Bool
            do {
                (source, isNew) = try await admin.putDataSource(
                    entitySet,
                    destination: destination,
                    path: path,
                    keyProperty: keyProperty,
                    everySeconds: every,
                    deliversChanges: delivers,
                    app: id
                )
            } catch let error as ServiceError where error == .notFound {
                throw CommandFailure(
                    "the app \(id) has no destination \(destination); add it first with 'gangway admin destinations add'."
                )
            }
            let when = source.everySeconds.map { "every \(AdminFormatter.every(Int($0)))" } ?? "when asked"
            Console.standardOutput(
                "\(isNew ? "Added" : "Changed") the source of \(source.entitySet): \(source.destination) "
                    + "\(source.path), keyed by \(source.keyProperty), read \(when)"
                    + (source.deliversChanges ? ", devices' changes delivered to it" : "")
                    + (isNew ? "; the first read starts now." : ".")
            )
        }
    }
}

struct AdminDataSourceRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Stop filling an entity set from its data source; its entities stay."
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Argument(help: "The entity set.")
    var entitySet: String

    func validate() throws {
        try IdentifierArgument.check(entitySet, as: "the entity set")
    }

    func run() async throws {
        let entitySet = entitySet
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            do {
                try await admin.removeDataSource(entitySet, app: id)
            } catch let error as ServiceError where error == .notFound {
                throw CommandFailure("the set '\(entitySet)' of the app \(id) has no data source; nothing was removed.")
            }
            Console.standardOutput("The set \(entitySet) is no longer read from a data source; its entities stay.")
        }
    }
}

/// `gangway admin data pull SET`: a read of a set's data source, now.
struct AdminDataPull: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Read an entity set from its data source now, and say how the read went.",
        discussion: """
            The server reads only what changed since its last read, unless --full (or its \
            delta link failed). The command waits for the read to end (up to --wait \
            seconds) and prints what it did. Exit codes: 0 the read ended and refused no \
            row, 1 it failed or refused rows (the others were written) or the server \
            refused, 64 invalid command line.
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Argument(help: "The entity set.")
    var entitySet: String

    @Flag(help: "Read the whole set, and remove what the service no longer has.")
    var full = false

    @Option(help: "How long to wait for the read to end, in seconds; 0 asks for it and returns.")
    var wait = 600

    func validate() throws {
        try IdentifierArgument.check(entitySet, as: "the entity set")
        guard (0...86_400).contains(wait) else { throw ValidationError("--wait must be from 0 to 86400 seconds.") }
    }

    func run() async throws {
        let (entitySet, full, wait) = (entitySet, full, wait)
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            let before = try await admin.dataSource(entitySet, app: id)
            guard let before else {
                throw CommandFailure("the set '\(entitySet)' of the app \(id) has no data source; nothing was read.")
            }
            let asked = try await admin.pullDataSource(entitySet, full: full, app: id)
            guard wait > 0 else {
                Console.standardOutput("A read of \(entitySet) is asked for; it starts within a second.")
                return
            }
            let deadline = ContinuousClock.now + .seconds(wait)
            var source = asked
            // Done once a read has ended since, and none is due from before the ask.
            while source.running || source.lastRun?.finishedAt == before.lastRun?.finishedAt
                || (source.nextRunAt.map { $0 <= (asked.nextRunAt ?? $0) } ?? false)
            {
                guard ContinuousClock.now < deadline else {
                    throw CommandFailure(
                        "the read of \(entitySet) has not ended after \(wait) seconds; "
                            + "'gangway admin data source \(entitySet)' shows how it goes."
                    )
                }
                try await Task.sleep(for: .milliseconds(250))
                guard let current = try await admin.dataSource(entitySet, app: id) else {
                    throw CommandFailure("the data source of \(entitySet) was removed while it was read.")
                }
                source = current
            }
            guard let run = source.lastRun else { return }
            Console.standardOutput("\(entitySet): \(AdminFormatter.lastRun(run))")
            if let fellBack = run.fellBack {
                Console.standardOutput("A full read: the delta link failed (\(fellBack)).")
            }
            if !run.refusals.isEmpty { Console.standardOutput(AdminFormatter.refusals(run)) }
            if let error = run.error { throw CommandFailure("the read failed: \(error)") }
            if run.refused > 0 { throw CommandFailure("\(run.refused) rows were refused; the others were written.") }
        }
    }
}
