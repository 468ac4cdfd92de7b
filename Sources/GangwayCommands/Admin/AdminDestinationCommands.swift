import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayProtocol
import GangwayServices
import GangwayTerminal

/// `gangway admin destinations`.
struct AdminDestinations: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "destinations",
        abstract: "List, add and remove an app's destinations: the company backends its devices reach as the person.",
        discussion: """
            A device of the app reaches the backend at SERVER/apps/APP/destinations/NAME/PATH, \
            which the server forwards to URL/PATH, streaming both ways. The backend gets the \
            signed-in person as a short-lived token the server signs (ES256; check it against \
            SERVER/apps/APP/destination-keys: issuer SERVER/apps/APP, audience URL), or, with \
            --credential-header and --credential-file (or --credential-stdin), a fixed value the \
            server keeps sealed. The device's own token and cookies never reach it; a locked or \
            wiped registration or a blocked user gets nothing through.
            """,
        subcommands: [AdminDestinationsList.self, AdminDestinationsAdd.self, AdminDestinationsRemove.self],
        defaultSubcommand: AdminDestinationsList.self
    )
}

struct AdminDestinationsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the app's destinations and the requests forwarded in the last 7 days (the default)."
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Flag(help: "Print them as JSON.")
    var json = false

    func run() async throws {
        let json = json
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            let destinations = try await admin.destinations(app: id)
            Console.standardOutput(json ? AdminFormatter.json(destinations) : AdminFormatter.destinations(destinations))
        }
    }
}

struct AdminDestinationsAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a destination, or change the one of that name."
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Argument(help: "Its name, in the devices' paths: letters, digits, '.', '_' and '-'.")
    var name: String

    @Option(help: "The backend's base URL: https (http only on 127.0.0.1, localhost or [::1]).")
    var url: String

    @Option(help: "Send a fixed credential in this header instead of the person's identity.")
    var credentialHeader: String?

    @Option(
        help: """
            A file holding the credential's value, yours and mode 0600. Kept sealed and never shown; left out on a \
            change, the stored one stays.
            """
    )
    var credentialFile: String?

    @Flag(help: "Read the credential's value from standard input.")
    var credentialStdin = false

    func validate() throws {
        try IdentifierArgument.check(name, as: "the destination name")

        if credentialFile != nil, credentialStdin {
            throw ValidationError("give the credential with --credential-file or --credential-stdin, not both.")
        }
        if credentialFile != nil || credentialStdin, credentialHeader == nil {
            throw ValidationError("the credential needs --credential-header: the header to send it in.")
        }
    }

    func run() async throws {
        let (credentialFile, credentialStdin) = (credentialFile, credentialStdin)
        let credential: String? = try await CommandReport.run("gangway admin") {
            if let credentialFile { return try SecretInput.read(file: credentialFile, what: "the credential file") }
            return credentialStdin ? try SecretInput.readStandardInput(what: "the credential") : nil
        }
        let (name, url, header) = (name, url, credentialHeader)
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            let (destination, isNew) = try await admin.putDestination(
                name,
                url: url,
                credentialHeader: header,
                credential: credential,
                app: id
            )
            let carries =
                destination.authentication == .credential
                ? "a fixed credential in \(destination.credentialHeader ?? "a header")"
                : "the signed-in person"
            Console.standardOutput(
                "\(isNew ? "Added" : "Changed") \(destination.name): \(destination.url), with \(carries)."
            )
        }
    }
}

struct AdminDestinationsRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a destination: devices reach it no more."
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Argument(help: "The destination's name.")
    var name: String

    func validate() throws {
        try IdentifierArgument.check(name, as: "the destination name")
    }

    func run() async throws {
        let name = name
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            try await admin.removeDestination(name, app: id)
            Console.standardOutput("Removed \(name).")
        }
    }
}
