import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayProtocol
import GangwayServer
import GangwayServices
import GangwayTerminal
import Logging

/// `gangway admin keys`.
struct AdminKeys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract:
            "List the server's signing keys, rotate one, or replace the server key that seals every secret.",
        discussion: """
            The server signs OpenID Connect ID tokens (id-token) and the identity it forwards \
            to destinations (destination) with keys of their own, published by their kid at \
            each app's jwks_uri and at /apps/APP/destination-keys. A rotation publishes a new \
            key at once and signs with it after the server's publication lead (gangway serve \
            --key-publish-seconds, 5 minutes by default); the old key stays published until \
            the tokens it signed have expired. A relying party that keeps the key set no \
            longer than the lead never meets a token it cannot verify. A server that is \
            stopped is rotated with the lead --publish-seconds gives (the default unless it \
            is given): give the one its serve command has. 'gangway serve --rotate-keys-days \
            N' rotates them on a schedule.

            Activation links are signed with a key of their own (activation), which devices \
            pin. Its rotation is the operator's alone: the new key signs at once, endorsed \
            by the key it replaces, and every link it signs carries the chain of keys from \
            the first, so a device that pinned any earlier key still verifies it. Each \
            rotation adds 130 characters to every link; a chain holds at most 8 keys, and \
            --drop-oldest makes room. A device keeps trusting the key it pinned until it \
            follows a rotation, even if that key is stolen: rotate when the key may have been \
            exposed, or on a slow schedule of your own.

            'replace-server-key' replaces the key file that seals every secret the server \
            keeps, the servers stopped.
            """,
        subcommands: [AdminKeysList.self, AdminKeysRotate.self, AdminKeysReplaceServerKey.self],
        defaultSubcommand: AdminKeysList.self
    )
}

struct AdminKeysList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List each purpose's keys in the key sets: next, signing and still published (the default)."
    )

    @OptionGroup var server: AdminOptions

    func run() async throws {
        try await server.run { admin in
            Console.standardOutput(AdminFormatter.signingKeys(try await admin.signingKeys()))
        }
    }
}

struct AdminKeysRotate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract:
            "Publish a new key for a purpose, to sign after the publication lead (an activation key at once, "
            + "endorsed by the old); the old one stays published until its tokens expire."
    )

    @OptionGroup var server: AdminOptions

    @Argument(help: "What the key signs: id-token, destination or activation.")
    var purpose: SigningKeyPurpose

    @Flag(
        help: """
            Sign with the new key at once, for a key thought exposed: relying parties may refuse \
            tokens until they fetch the key set again.
            """
    )
    var immediately = false

    @Flag(
        help: """
            For the activation key: drop the oldest key of its chain, which links carry (at \
            most \(ActivationKeyChain.maximumKeys) keys). Devices that pinned only that key refuse \
            the new links until they pin a newer one.
            """
    )
    var dropOldest = false

    @Option(
        name: .customLong("publish-seconds"),
        parsing: .unconditional,
        help: ArgumentHelp(
            """
            With the server stopped: how long the new key is published before it signs, as \
            its 'gangway serve --key-publish-seconds' says (\(ServerConfiguration.keyPublicationSeconds.lowerBound) \
            to \(ServerConfiguration.keyPublicationSeconds.upperBound); default \(Int(ServerConfiguration.defaultKeyPublicationLead.components.seconds))). A running server signs after its own.
            """,
            valueName: "seconds"
        )
    )
    var publishSeconds: Int?

    func validate() throws {
        guard !dropOldest || purpose == .activation else {
            throw ValidationError("--drop-oldest is for the activation key alone.")
        }
        if let publishSeconds {
            let range = ServerConfiguration.keyPublicationSeconds
            guard range.contains(publishSeconds) else {
                throw ValidationError(
                    "--publish-seconds must be between \(range.lowerBound) and \(range.upperBound) seconds."
                )
            }
            guard server.serverURL == nil else {
                throw ValidationError(
                    "--publish-seconds is for a server that is stopped; the one at --server signs after its own lead."
                )
            }
        }
    }

    func run() async throws {
        let (purpose, immediately, dropOldest, publishSeconds) = (purpose, immediately, dropOldest, publishSeconds)
        let lead = publishSeconds.map { Duration.seconds($0) } ?? ServerConfiguration.defaultKeyPublicationLead
        try await server.reaching(keyPublicationLead: lead) { admin, startedHere in
            // A running server's own lead applies: never a rotation on other terms than asked.
            guard publishSeconds == nil || startedHere else {
                throw CommandFailure(
                    "the server is running, and signs after its own lead (serve --key-publish-seconds): "
                        + "run the command without --publish-seconds. Nothing was rotated."
                )
            }
            let key = try await admin.rotateSigningKey(purpose, immediately: immediately, dropOldest: dropOldest)
            Console.standardOutput(AdminFormatter.rotated(key, droppedOldest: dropOldest))
        }
    }
}

extension SigningKeyPurpose: ExpressibleByArgument {}

struct AdminKeysReplaceServerKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replace-server-key",
        abstract:
            "Replace the server key file with a new key, every value sealed with it sealed anew; servers stopped.",
        discussion: """
            The server key (DIR/server-key, or serve's --key-file) seals every secret the \
            server keeps: the activation and signing keys, recovery secrets, operators' \
            second factors, destinations' credentials, providers' client secrets and refresh \
            tokens. Stop every server of the database first (on PostgreSQL, on every machine: \
            the command refuses while one listens). The new key is written beside the old \
            as server-key.next, each value is sealed with it in a write of its own, and \
            then it takes the key file's name; the old key is kept as \
            server-key.replaced-TIME, since backups taken before need it. No server starts \
            on the database while a replacement has not ended: interrupted, run the command \
            again and it goes on. Then copy the new key file to every server's machine.

            Exit codes: 0 replaced, 1 refused or failed (the message says why), 64 invalid \
            command line.
            """
    )

    @Option(name: .customLong("data-dir"), help: "The server's data directory, as 'gangway serve' was given it.")
    var dataDirectory = ServeCommand.defaultDataDirectory

    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "The server key, as 'gangway serve' was given it (default: DIR/server-key).",
            valueName: "file"
        )
    )
    var keyFile: String?

    @Option(name: .customLong("postgres"), help: "The PostgreSQL URL the servers use, if they use one.")
    var postgresURL: String?

    @Option(
        name: .customLong("postgres-file"),
        help: ArgumentHelp("A file holding the PostgreSQL URL, yours alone.", valueName: "file")
    )
    var postgresFile: String?

    func validate() throws {
        try DirectoryOption.validate(dataDirectory, option: "--data-dir")
        if postgresURL != nil, postgresFile != nil {
            throw ValidationError("give the PostgreSQL URL with --postgres or --postgres-file, not both.")
        }
    }

    func run() async throws {
        try await CommandReport.run("gangway admin keys replace-server-key") {
            var configuration = ServerConfiguration(
                dataDirectory: URL(fileURLWithPath: dataDirectory),
                postgresURL: try ServeCommand.databaseURL(postgres: postgresURL, file: postgresFile),
                keyFile: keyFile.map { URL(fileURLWithPath: $0) }
            )
            configuration.storageStartupWait = .seconds(5)
            let outcome = try await ServerKeyReplacement.replace(
                configuration: configuration,
                logger: Logger(label: "gangway.keys")
            )
            let keyPath = configuration.serverKeyPath.path
            var lines = [
                "Replaced the server key \(keyPath): \(outcome.resealed) values sealed with the new key"
                    + (outcome.alreadyNew > 0 ? ", \(outcome.alreadyNew) sealed with it before." : ".")
            ]
            if outcome.unreadable > 0 {
                lines.append(
                    "\(outcome.unreadable) values opened with neither key and are left as they were; the server "
                        + "could not use them before either."
                )
            }
            if let replaced = outcome.replacedKey {
                lines.append("The old key is kept as \(replaced.path): backups taken before now need it.")
            }
            lines.append("Copy \(keyPath) to every server of this database before it starts.")
            Console.standardOutput(lines.joined(separator: "\n"))
        }
    }
}
