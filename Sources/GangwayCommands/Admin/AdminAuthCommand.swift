import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayPolicy
import GangwayProtocol
import GangwayServices
import GangwayTerminal

/// `gangway admin auth`: how an app's people sign in.
struct AdminAuth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Show how an app's people sign in, or change it.",
        discussion: """
            --type basic: a user name and password kept by this server. --type oauth2: OAuth \
            2.0 with this server as the app's authorization server; the app's people then no \
            longer sign in with a password at the server. They sign in as the server's own \
            users, or, with --issuer and --client-id, through the company's OpenID Connect \
            provider.

            The client secret is read from --client-secret-file or from standard input \
            (--client-secret-stdin), never from the command line; it is sealed under the \
            server's key and never shown or logged. Changing the issuer or client ID without \
            a secret leaves the new client without one.

            --redirect-uri (repeated for more than one) sets where the authorization code grant \
            may send a code: a private-use scheme with a dot (com.airline.checks:/oauth2redirect), \
            http on 127.0.0.1 or [::1], where any port matches, or https. It replaces the list; \
            --no-redirect-uris empties it.

            Only the options given change. Devices learn the type at their next launch.
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case basic, oauth2

        var authType: AppConfiguration.AuthType {
            switch self {
            case .basic: .basic
            case .oauth2: .oauth2
            }
        }
    }

    @Option(name: .customLong("type"), help: "basic or oauth2.")
    var type: Kind?

    @Option(name: .customLong("issuer"), help: "The OpenID Connect provider's issuer URL (https).")
    var issuer: String?

    @Option(name: .customLong("client-id"), help: "This server's client ID at the provider.")
    var clientID: String?

    @Option(name: .customLong("client-secret-file"), help: "A file holding the client secret, yours and mode 0600.")
    var clientSecretFile: String?

    @Flag(name: .customLong("client-secret-stdin"), help: "Read the client secret from standard input.")
    var clientSecretFromStandardInput = false

    @Option(
        name: .customLong("creates-users"),
        help: "Whether a person the provider knows gets a user at their first sign-in (true or false)."
    )
    var createsUsers: Bool?

    @Option(
        name: .customLong("attribute-claim"),
        help: ArgumentHelp(
            "A user attribute the provider's ID token sets, as ATTRIBUTE=CLAIM (stations=station_codes); repeat for more. Replaces the list.",
            discussion:
                "At each sign-in through the provider, the attribute takes the claim's values (a text or a list of texts), and loses them when the token has no such claim.",
            valueName: "attribute=claim"
        )
    )
    var attributeClaims: [String] = []

    @Flag(name: .customLong("no-attribute-claims"), help: "No user attribute comes from the provider's claims.")
    var noAttributeClaims = false

    @Flag(name: .customLong("own-users"), help: "Remove the provider: people sign in as this server's users.")
    var ownUsers = false

    @Option(
        name: .customLong("redirect-uri"),
        help: "A redirect URI of the app's authorization code grant; repeat for more. Replaces the list."
    )
    var redirectURIs: [String] = []

    @Flag(name: .customLong("no-redirect-uris"), help: "Remove every redirect URI.")
    var noRedirectURIs = false

    var changesProvider: Bool {
        issuer != nil || clientID != nil || clientSecretFile != nil || clientSecretFromStandardInput
            || createsUsers != nil || !attributeClaims.isEmpty || noAttributeClaims
    }

    /// `--attribute-claim`s by attribute.
    static func claims(_ given: [String]) throws -> [String: String] {
        var claims: [String: String] = [:]
        for text in given {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, EntityLimits.isFieldName(parts[0]), !parts[1].isEmpty,
                parts[0].count <= APILimits.fieldName.upperBound, parts[1].count <= APILimits.claimName.upperBound,
                !TextRules.hasControlCharacters(parts[1])
            else {
                throw ValidationError(
                    "--attribute-claim '\(TextRules.shown(text, limit: 100))' is not ATTRIBUTE=CLAIM (an attribute named as a field, a claim of at most \(APILimits.claimName.upperBound) characters)."
                )
            }
            guard claims.updateValue(parts[1], forKey: parts[0]) == nil else {
                throw ValidationError("--attribute-claim gives \(parts[0]) twice.")
            }
        }
        guard claims.count <= APILimits.userAttributes.upperBound else {
            throw ValidationError("--attribute-claim sets at most \(APILimits.userAttributes.upperBound) attributes.")
        }
        return claims
    }

    func validate() throws {
        if clientSecretFile != nil, clientSecretFromStandardInput {
            throw ValidationError(
                "give the client secret with --client-secret-file or --client-secret-stdin, not both."
            )
        }
        if ownUsers, changesProvider {
            throw ValidationError("--own-users removes the provider; it takes no provider option.")
        }
        if noAttributeClaims, !attributeClaims.isEmpty {
            throw ValidationError("--no-attribute-claims removes them all; it takes no --attribute-claim.")
        }
        _ = try Self.claims(attributeClaims)
        if noRedirectURIs, !redirectURIs.isEmpty {
            throw ValidationError("--no-redirect-uris removes them all; it takes no --redirect-uri.")
        }
        if let bad = redirectURIs.first(where: { !RedirectURI.isValid($0) }) {
            throw ValidationError("\(bad): \(RedirectURI.rule)")
        }
    }

    func run() async throws {
        let secret = try await CommandReport.run("gangway admin") { try readSecret() }
        let (type, issuer, clientID, createsUsers, ownUsers, changesProvider) = (
            type, issuer, clientID, createsUsers, ownUsers, changesProvider
        )
        let (redirectURIs, noRedirectURIs) = (redirectURIs, noRedirectURIs)
        let claims = noAttributeClaims ? [:] : attributeClaims.isEmpty ? nil : try Self.claims(attributeClaims)
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            let current = try await admin.authentication(app: id)
            guard type != nil || ownUsers || changesProvider || !redirectURIs.isEmpty || noRedirectURIs else {
                Console.standardOutput(AdminFormatter.authentication(current))
                return
            }
            var change = AuthenticationChange(
                type: type?.authType ?? current.type,
                redirectURIs: noRedirectURIs ? [] : redirectURIs.isEmpty ? current.redirectURIs : redirectURIs
            )
            if !ownUsers, changesProvider || current.provider != nil {
                guard let issuer = issuer ?? current.provider?.issuer,
                    let clientID = clientID ?? current.provider?.clientID
                else {
                    throw CommandFailure(
                        "a provider needs both --issuer and --client-id.",
                        code: ExitCode.validationFailure.rawValue
                    )
                }
                change.provider = .init(
                    issuer: issuer,
                    clientID: clientID,
                    clientSecret: secret,
                    createsUsers: createsUsers ?? current.provider?.createsUsers ?? false,
                    attributeClaims: claims ?? current.provider?.attributeClaims?.additionalProperties ?? [:]
                )
            }
            let updated = try await admin.setAuthentication(change, app: id)
            Console.standardOutput("Changed. Devices learn it at their next launch.")
            Console.standardOutput(AdminFormatter.authentication(updated))
        }
    }

    /// The client secret from its file or standard input; `nil` when neither was given.
    private func readSecret() throws -> Secret? {
        if let clientSecretFile {
            return Secret(try SecretInput.read(file: clientSecretFile, what: "the client secret file"))
        }
        guard clientSecretFromStandardInput else { return nil }
        return Secret(try SecretInput.readStandardInput(what: "the client secret"))
    }
}
