import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayPolicy
import GangwayProtocol
import GangwayServices
import GangwayTerminal

/// `gangway admin users`.
struct AdminUsers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract:
            "List, add, block and unblock the server's users, set their attributes, end their sessions, or link their provider identities.",
        subcommands: [
            AdminUsersList.self, AdminUsersAdd.self, AdminUsersBlock.self, AdminUsersUnblock.self,
            AdminUsersAttributes.self, AdminUsersRevoke.self, AdminUsersIdentities.self, AdminUsersLink.self,
            AdminUsersUnlink.self,
        ],
        defaultSubcommand: AdminUsersList.self
    )
}

struct AdminUsersList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the users (the default).")

    @OptionGroup var server: AdminOptions

    @Option(help: "Only users whose name starts with this (any case).")
    var prefix: String?

    @Option(help: "Only users whose name or full name holds this anywhere (any case).")
    var search: String?

    @Option(help: "Start after this name (the last one of the page before).")
    var after: String?

    @OptionGroup var limit: ListLimitOption

    func validate() throws {
        for (name, value) in [("--prefix", prefix), ("--search", search), ("--after", after)] {
            if let value, !APILimits.usernamePrefix.contains(value.unicodeScalars.count) {
                throw ValidationError("\(name) holds at most \(APILimits.usernamePrefix.upperBound) characters.")
            }
        }
    }

    func run() async throws {
        let (prefix, search, after, limit) = (prefix, search, after, limit.value)
        try await server.run { admin in
            Console.standardOutput(
                AdminFormatter.users(try await admin.users(prefix: prefix, search: search, after: after, limit: limit))
            )
        }
    }
}

struct AdminUsersAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a user who can sign in.",
        discussion: """
            The password is read from the terminal without echo, or as the first line of \
            standard input; it needs at least 8 characters.
            """
    )

    @OptionGroup var server: AdminOptions

    @Argument(help: "The user name they sign in with.")
    var username: String

    @Option(
        name: .customLong("name"),
        parsing: .unconditional,
        help: "The name shown on the device (default: the user name)."
    )
    var displayName: String?

    func validate() throws {
        try IdentifierArgument.check(username, as: "the user name", .username)
        if let displayName, let problem = TextRules.nameProblem(displayName) {
            throw ValidationError("--name \(problem).")
        }
    }

    func run() async throws {
        let username = username
        let displayName = displayName
        // The server first: a password is asked only once there is somewhere to add it,
        // and a name that is taken is said before it is asked.
        try await server.run { admin in
            if try await admin.user(username) != nil {
                throw CommandFailure("a user named \(username) exists already; nothing was added.")
            }
            let console = Console.prompting()
            guard let password = try? await console.askSecret("Password for \(username): "), !password.isEmpty else {
                throw CommandFailure("no password given; nothing was added.")
            }
            try await admin.createUser(username, password: password, displayName: displayName)
            Console.standardOutput("Added \(username).")
        }
    }
}

struct AdminUsersBlock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "block",
        abstract: "Block a user: their sessions end and they cannot sign in on any device.",
        discussion: """
            A block holds against a new sign-in and a new device ID alike, until 'gangway \
            admin users unblock'; the user's recovery secrets are replaced, and their right \
            password is answered exactly as a wrong one. To end one device's access only, \
            see 'gangway admin devices --help'.
            """
    )

    @OptionGroup var target: UserTarget

    func run() async throws {
        try await target.setBlocked(true, saying: "their sessions ended and they cannot sign in")
    }
}

struct AdminUsersUnblock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unblock",
        abstract: "Let a blocked user sign in again."
    )

    @OptionGroup var target: UserTarget

    func run() async throws {
        try await target.setBlocked(false, saying: "they can sign in again")
    }
}

struct AdminUsersAttributes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attributes",
        abstract: "Show or set a user's attributes, which decide the entities of a subset they receive.",
        discussion: """
            Each attribute is NAME=VALUE,VALUE...; the ones given replace all the user's \
            attributes, and NAME= with no value removes one. A set whose schema has a subset \
            ('gangway admin data schema --subset FIELD=ATTRIBUTE') sends each user the \
            entities whose field holds one of the values their attribute lists; their next \
            sync drops what left and brings what entered.
            Example: gangway admin users attributes alice stands=12,14
            """
    )

    @OptionGroup var target: UserTarget

    @Argument(help: "The attributes, as NAME=VALUE,VALUE...")
    var attributes: [String] = []

    @Flag(help: "Print the attributes as JSON.")
    var json = false

    func validate() throws { _ = try Self.parse(attributes) }

    static func parse(_ arguments: [String]) throws -> [String: [String]] {
        var parsed: [String: [String]] = [:]
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "=") else {
                throw ValidationError("'\(TextRules.shown(argument, limit: 64))' is not NAME=VALUE,VALUE...")
            }
            let name = String(argument[..<equals])
            guard EntityLimits.isFieldName(name) else {
                throw ValidationError(
                    "'\(TextRules.shown(name, limit: 64))' is not an attribute name (a letter, then letters, digits and '_')."
                )
            }
            guard parsed[name] == nil else { throw ValidationError("the attribute \(name) is given twice.") }
            let values = argument[argument.index(after: equals)...].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty }
            guard Set(values).count == values.count else {
                throw ValidationError("the attribute \(name) lists a value twice.")
            }
            parsed[name] = values
        }
        return parsed
    }

    func run() async throws {
        let (given, json) = (try Self.parse(attributes), json)
        let changes = !attributes.isEmpty
        try await target.run { admin, username in
            let user: ManagedUser
            if changes {
                user = try await admin.setAttributes(given, user: username)
            } else {
                guard let found = try await admin.user(username) else {
                    throw CommandFailure("there is no user \(username).")
                }
                user = found
            }
            let values = user.attributeValues
            if json {
                let data = (try? JSONSerialization.data(withJSONObject: values, options: [.sortedKeys])) ?? Data()
                Console.standardOutput(String(decoding: data, as: UTF8.self))
            } else if values.isEmpty {
                Console.standardOutput("\(username) has no attributes.")
            } else {
                Console.standardOutput(
                    values.sorted { $0.key < $1.key }.map {
                        "\(username) \($0.key): \($0.value.joined(separator: ", "))"
                    }
                    .joined(separator: "\n")
                )
            }
        }
    }
}

struct AdminUsersRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "End every session of a user, on every app and device.",
        discussion: """
            Each of the user's devices meets the end at its next request and asks them to \
            sign in again, which they can, unlike after 'gangway admin users block'.
            """
    )

    @OptionGroup var target: UserTarget

    func run() async throws {
        try await target.run { admin, username in
            try await admin.revokeSessions(user: username)
            Console.standardOutput("Every session of \(username) has ended; they can sign in again.")
        }
    }
}

struct AdminUsersIdentities: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identities",
        abstract: "List the OpenID Connect provider identities linked to a user."
    )

    @OptionGroup var target: UserTarget

    func run() async throws {
        try await target.run { admin, username in
            Console.standardOutput(
                AdminFormatter.identityLinks(try await admin.identityLinks(user: username), user: username)
            )
        }
    }
}

/// The provider identity `link` and `unlink` name.
struct IdentityOptions: ParsableArguments {
    @Option(help: "The provider's issuer URL, exactly as the app's provider is set ('gangway admin auth').")
    var issuer: String

    @Option(help: "The person's subject (sub) at the provider; the sign-in page shows it to a person not linked yet.")
    var subject: String

    /// Links the person to `holder` and says so: the one way `users link` and
    /// `operators link` go.
    func link(to holder: ManagedIdentityLink.Holder, with admin: AdminClient) async throws {
        try await admin.linkIdentity(issuer: issuer, subject: subject, to: holder)
        Console.standardOutput("Linked \(subject) at \(issuer) to \(holder).")
    }

    /// Unlinks the person from `holder` and says so.
    func unlink(from holder: ManagedIdentityLink.Holder, with admin: AdminClient) async throws {
        try await admin.unlinkIdentity(issuer: issuer, subject: subject, from: holder)
        Console.standardOutput("Unlinked \(subject) at \(issuer) from \(holder).")
    }
}

struct AdminUsersLink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Link a person of an OpenID Connect provider to a user.",
        discussion: """
            When an app whose provider has this issuer signs the person in, they are this \
            user, with the user's devices, data and blocks. Without a link, a person the \
            provider signs in gets a user only when the app's provider creates users \
            ('gangway admin auth --creates-users'); an existing user is never matched by \
            name or email address.
            """
    )

    @OptionGroup var target: UserTarget
    @OptionGroup var identity: IdentityOptions

    func run() async throws {
        let identity = identity
        try await target.run { admin, username in try await identity.link(to: .user(username), with: admin) }
    }
}

struct AdminUsersUnlink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlink",
        abstract: "Remove a provider identity from a user.",
        discussion: """
            Sessions already open stay open: end them with 'gangway admin users revoke'.
            """
    )

    @OptionGroup var target: UserTarget
    @OptionGroup var identity: IdentityOptions

    func run() async throws {
        let identity = identity
        try await target.run { admin, username in try await identity.unlink(from: .user(username), with: admin) }
    }
}

/// The server and the user a command acts on.
struct UserTarget: ParsableArguments {
    @OptionGroup var server: AdminOptions

    @Argument(help: "The user name.")
    var username: String

    /// Runs `body` with the admin client and the user's name.
    func run(_ body: @escaping @Sendable (AdminClient, _ username: String) async throws -> Void) async throws {
        let username = username
        try await server.run { admin in try await body(admin, username) }
    }

    func setBlocked(_ blocked: Bool, saying outcome: String) async throws {
        try await run { admin, username in
            // Sent either way (a block stopped halfway is finished), and said as it is.
            let before = try await admin.user(username)
            try await admin.setBlocked(blocked, user: username)
            if before?.isBlocked == blocked {
                Console.standardOutput(
                    "\(username) is \(blocked ? "blocked" : "not blocked") already; nothing changed."
                )
            } else {
                Console.standardOutput("\(blocked ? "Blocked" : "Unblocked") \(username): \(outcome).")
            }
        }
    }

    func validate() throws {
        try IdentifierArgument.check(username, as: "the user name", .username)
    }
}
