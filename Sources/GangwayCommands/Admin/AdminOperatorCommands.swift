import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayProtocol
import GangwayServices
import GangwayTerminal

/// `gangway admin operators`.
struct AdminOperators: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operators",
        abstract:
            "List, add and remove the people who sign in to the console, change their role, or link their "
            + "provider identities.",
        discussion: """
            An operator signs in to the console (/console on the server) with a password \
            and a code from an authenticator app, both set from a one-use link that 'add' \
            and 'enrol' print: send it to the operator alone. Or, once 'link' names their \
            identity at an OpenID Connect provider an app signs in with, through that \
            provider. A viewer reads; an operator \
            also acts on users and devices; an admin also changes apps, their settings and \
            the operators.
            """,
        subcommands: [
            AdminOperatorsList.self, AdminOperatorsAdd.self, AdminOperatorsEnrol.self, AdminOperatorsRole.self,
            AdminOperatorsLink.self, AdminOperatorsUnlink.self, AdminOperatorsRemove.self,
        ],
        defaultSubcommand: AdminOperatorsList.self
    )
}

struct AdminOperatorsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the operators (the default).")

    @OptionGroup var server: AdminOptions

    func run() async throws {
        try await server.run { admin in Console.standardOutput(AdminFormatter.operators(try await admin.operators())) }
    }
}

struct AdminOperatorsAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an operator, and print the one-use link where they set a password and second factor."
    )

    @OptionGroup var server: AdminOptions

    @Argument(help: "The name they sign in with: letters, digits, '.', '_', '@' and '-'.")
    var name: String

    @Option(help: "What they may do: viewer, operator or admin.")
    var role: OperatorRole

    func validate() throws {
        try IdentifierArgument.check(name, as: "the operator name", .operatorName)
    }

    func run() async throws {
        let (name, role) = (name, role)
        try await server.reaching { admin, startedHere in
            let enrolment = try await admin.addOperator(name, role: role)
            Console.standardOutput(AdminFormatter.enrolment(enrolment, startedHere: startedHere))
        }
    }
}

struct AdminOperatorsEnrol: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enrol",
        abstract: "Print a new one-use link for an operator to set a new password and second factor.",
        discussion: """
            For a lost phone or a forgotten password. The old ones keep working until the \
            link is used; then the operator's console sessions end.
            """
    )

    @OptionGroup var target: OperatorTarget

    func run() async throws {
        let name = target.name
        try await target.server.reaching { admin, startedHere in
            Console.standardOutput(
                AdminFormatter.enrolment(try await admin.enrolOperator(name), startedHere: startedHere)
            )
        }
    }
}

struct AdminOperatorsRole: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "role", abstract: "Change an operator's role.")

    @OptionGroup var target: OperatorTarget

    @Argument(help: "What they may do from now: viewer, operator or admin.")
    var role: OperatorRole?

    /// The same, written as `operators add` takes it.
    @Option(
        name: .customLong("role"),
        help: ArgumentHelp("The role, as 'operators add' takes it.", visibility: .hidden)
    )
    var roleOption: OperatorRole?

    func validate() throws {
        guard (role == nil) != (roleOption == nil) else {
            throw ValidationError("Give the role once: viewer, operator or admin.")
        }
    }

    func run() async throws {
        guard let role = role ?? roleOption else { return }
        try await target.run { admin, name in
            let changed = try await admin.setRole(role, operator: name)
            let article = changed.role == .viewer ? "a" : "an"
            Console.standardOutput("\(changed.name) is now \(article) \(changed.role.rawValue).")
        }
    }
}

struct AdminOperatorsRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an operator; their console sessions end."
    )

    @OptionGroup var target: OperatorTarget

    func run() async throws {
        try await target.run { admin, name in
            try await admin.removeOperator(name)
            Console.standardOutput("Removed \(name).")
        }
    }
}

struct AdminOperatorsLink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Let an operator sign in to the console through an OpenID Connect provider.",
        discussion: """
            The link is used once the issuer is the provider of an app ('gangway admin auth'; \
            one that no app uses yet is kept until then): the console's sign-in page then \
            offers it, through that app's client, whose provider must also \
            know the console's redirect URI (the app's sign-in page in the console shows it). \
            The person the provider signs in with this subject is the operator, with no \
            password or code of Gangway's: the provider's own sign-in, and its second factor, \
            stand for both. A subject is one operator at most.
            """
    )

    @OptionGroup var target: OperatorTarget

    @OptionGroup var identity: IdentityOptions

    func run() async throws {
        let identity = identity
        try await target.run { admin, name in try await identity.link(to: .operator(name), with: admin) }
    }
}

struct AdminOperatorsUnlink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlink",
        abstract: "Stop an operator signing in through an OpenID Connect provider.",
        discussion: """
            Console sessions already open stay open: remove the operator, or give them a \
            new enrolment, to end them.
            """
    )

    @OptionGroup var target: OperatorTarget

    @OptionGroup var identity: IdentityOptions

    func run() async throws {
        let identity = identity
        try await target.run { admin, name in try await identity.unlink(from: .operator(name), with: admin) }
    }
}

/// The server and the operator a command acts on.
struct OperatorTarget: ParsableArguments {
    @OptionGroup var server: AdminOptions

    @Argument(help: "The operator's name.")
    var name: String

    /// Runs `body` with the admin client and the operator's name.
    func run(_ body: @escaping @Sendable (AdminClient, _ name: String) async throws -> Void) async throws {
        let name = name
        try await server.run { admin in try await body(admin, name) }
    }

    func validate() throws {
        try IdentifierArgument.check(name, as: "the operator name", .operatorName)
    }
}

/// `gangway admin audit`.
struct AdminAudit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Show what operators and the admin token did, newest first: who, what, when and from where.",
        discussion: """
            Every change made through the admin API (this command's own, with the admin \
            token) or the console (by an operator), and the console's sign-ins. CHANGE says \
            what changed where the action does not say it all: "status: active → locked", \
            "blocked: false → true; password set", each app setting with its old and new \
            value; a password or a credential is said to be set, never shown. Nothing is \
            ever removed from the audit. --before pages back: give the oldest ID shown.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table
        case csv
        case json
    }

    @OptionGroup var server: AdminOptions

    @OptionGroup var limit: ListLimitOption

    @Option(parsing: .unconditional, help: "Show the events before this ID.")
    var before: Int64?

    @Option(help: "How to print them: table, csv or json.")
    var format = Format.table

    func validate() throws {
        if let before, before < 1 { throw ValidationError("--before is an event's ID: 1 or more.") }
    }

    func run() async throws {
        let (limit, before, format) = (limit.value ?? APIDefaults.listLimit, before, format)
        try await server.run { admin in
            let events = try await admin.auditEvents(limit: limit, before: before)
            switch format {
            case .table: Console.standardOutput(AdminFormatter.audit(events, before: before))
            case .csv: Console.standardOutput(AdminFormatter.auditCSV(events))
            case .json: Console.standardOutput(AdminFormatter.json(events))
            }
        }
    }
}

extension OperatorRole: ExpressibleByArgument {}
