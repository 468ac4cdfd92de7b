import Foundation
import GangwayTesting
import Testing

/// `gangway admin auth` and `gangway admin users revoke`, run as processes against the
/// local server.
@Suite("gangway admin auth: how an app's people sign in, its client secret never shown", .serialized)
struct AdminAuthEndToEndTests {
    typealias Machine = AdminCommandEndToEndTests.Machine
    static let secret = "cli-secret-8Hq2"

    /// Whether any file under the machine's directory holds `text`.
    static func filesContain(_ text: String, in machine: Machine) -> Bool {
        OfflineWorkEndToEndTests.filesContain(text, under: machine.directory.url)
    }

    @Test("shown, set with a secret from a file or standard input, kept sealed; sign-in by password then refused")
    func setAndShow() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let shown = try await machine.admin(["auth"])
        #expect(shown.status == 0, "\(shown.standardError)")
        #expect(shown.output.contains("Sign-in:         basic: a user name and password kept by this server"))

        let file = machine.directory.appending("client-secret")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data((Self.secret + "\n").utf8)))
        chmod(file.path, 0o644)
        // A secret file others can read is refused, and nothing is changed.
        let readable = try await machine.admin([
            "auth", "--type", "oauth2", "--issuer", "https://login.airline.example", "--client-id", "gangway-checks",
            "--client-secret-file", file.path,
        ])
        #expect(readable.status == 1)
        #expect(
            readable.standardError.contains("others can read it (mode 0644); make it 0600 with chmod"),
            "\(readable.standardError)"
        )
        await #expect(try machine.admin(["auth"]).output.contains("Sign-in:         basic"), "unchanged")
        chmod(file.path, 0o600)
        let set = try await machine.admin([
            "auth", "--type", "oauth2", "--issuer", "https://login.airline.example", "--client-id", "gangway-checks",
            "--client-secret-file", file.path, "--creates-users", "true",
        ])
        #expect(set.status == 0, "\(set.standardError)")
        #expect(set.output.contains("Sign-in:         oauth2: OAuth 2.0, this server as the authorization server"))
        #expect(set.output.contains("Provider:        https://login.airline.example"))
        #expect(set.output.contains("Client ID:       gangway-checks"))
        #expect(set.output.contains("Client secret:   kept, sealed"))
        #expect(set.output.contains("Redirect to:     http://127.0.0.1:"))
        #expect(set.output.contains("/apps/checks/oauth/callback (register it at the provider)"))
        #expect(set.output.contains("New people:      get a user at their first sign-in"))
        try FileManager.default.removeItem(at: file)

        // Only what is given changes; a new secret from standard input.
        let stdin = try await machine.admin(
            ["auth", "--creates-users", "false", "--client-secret-stdin"],
            lines: ["other-8Hq2"]
        )
        #expect(stdin.status == 0, "\(stdin.standardError)")
        #expect(stdin.output.contains("Provider:        https://login.airline.example"))
        #expect(stdin.output.contains("New people:      sign in only once an admin linked them to a user"))

        for result in [shown, set, stdin] {
            #expect(!result.output.contains(Self.secret) && !result.standardError.contains(Self.secret))
            #expect(!result.output.contains("other-8Hq2") && !result.standardError.contains("other-8Hq2"))
        }
        #expect(!Self.filesContain(Self.secret, in: machine), "the secret is sealed wherever it is kept")
        #expect(!Self.filesContain("other-8Hq2", in: machine))

        // (The device app now signs in with the device grant: DeviceGrantEndToEndTests.)

        let ownUsers = try await machine.admin(["auth", "--own-users"])
        #expect(ownUsers.output.contains("Provider:        none: people sign in as this server's users"))
        let basic = try await machine.admin(["auth", "--type", "basic"])
        #expect(basic.output.contains("Sign-in:         basic"))
    }

    @Test("redirect URIs of the code grant: set, replaced, removed; a bad one refused before anything is sent")
    func redirectURIs() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let set = try await machine.admin([
            "auth", "--type", "oauth2", "--redirect-uri", "http://127.0.0.1/callback", "--redirect-uri",
            "com.airline.checks:/oauth2redirect",
        ])
        #expect(set.status == 0, "\(set.standardError)")
        #expect(set.output.contains("Redirect URIs:   http://127.0.0.1/callback, com.airline.checks:/oauth2redirect"))
        // Another option keeps them.
        let kept = try await machine.admin([
            "auth", "--creates-users", "false", "--issuer", "https://login.airline.example", "--client-id", "c",
        ])
        #expect(kept.output.contains("Redirect URIs:   http://127.0.0.1/callback, com.airline.checks:/oauth2redirect"))
        let bad = try await machine.admin(["auth", "--redirect-uri", "http://localhost/callback"])
        #expect(bad.status == 64)
        #expect(bad.standardError.contains("a redirect URI must be a private-use scheme with a dot"))
        let both = try await machine.admin(["auth", "--no-redirect-uris", "--redirect-uri", "http://127.0.0.1/cb"])
        #expect(both.status == 64)
        let removed = try await machine.admin(["auth", "--no-redirect-uris"])
        #expect(removed.output.contains("Redirect URIs:   none: the device grant only"))
    }

    @Test("attribute claims: set with the provider, kept by other options, replaced, removed; a bad one refused")
    func attributeClaims() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let set = try await machine.admin([
            "auth", "--type", "oauth2", "--issuer", "https://login.airline.example", "--client-id", "c",
            "--attribute-claim", "stations=station_codes", "--attribute-claim", "teams=groups",
        ])
        #expect(set.status == 0, "\(set.standardError)")
        #expect(set.output.contains("Attributes:      stations from claim station_codes, teams from claim groups"))
        let kept = try await machine.admin(["auth", "--creates-users", "true"])
        #expect(kept.output.contains("Attributes:      stations from claim station_codes, teams from claim groups"))
        let replaced = try await machine.admin(["auth", "--attribute-claim", "stations=stations"])
        #expect(replaced.output.contains("Attributes:      stations from claim stations\n"), "\(replaced.output)")
        for bad in [["1st=x"], ["a="], ["a=b", "a=c"], ["noequals"]] {
            let refused = try await machine.admin(["auth"] + bad.flatMap { ["--attribute-claim", $0] })
            #expect(refused.status == 64, "\(bad)")
            #expect(refused.standardError.contains("--attribute-claim"), "\(refused.standardError)")
        }
        let both = try await machine.admin(["auth", "--no-attribute-claims", "--attribute-claim", "a=b"])
        #expect(both.status == 64)
        let removed = try await machine.admin(["auth", "--no-attribute-claims"])
        #expect(removed.output.contains("Attributes:      none from the provider's claims"))
    }

    @Test("bad command lines exit 64, a value the server refuses exits 1 with its reason; nothing changes")
    func refused() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let usage: [[String]] = [
            ["auth", "--client-secret-file", "/nonexistent", "--client-secret-stdin"],
            ["auth", "--own-users", "--issuer", "https://login.airline.example"],
            ["auth", "--type", "saml"],
            ["auth", "--issuer", "https://login.airline.example"],
        ]
        for arguments in usage {
            let result = try await machine.admin(arguments)
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
        }
        let plainHTTP = try await machine.admin([
            "auth", "--type", "oauth2", "--issuer", "http://login.airline.example", "--client-id", "c",
        ])
        #expect(plainHTTP.status == 1)
        #expect(plainHTTP.standardError.contains("issuer must be an https URL (http only on a loopback address)"))
        let missingFile = try await machine.admin([
            "auth", "--issuer", "https://login.airline.example", "--client-id", "c", "--client-secret-file",
            machine.directory.appending("missing").path,
        ])
        #expect(missingFile.status == 1)
        #expect(missingFile.standardError.contains("cannot read the client secret file"))
        let empty = try await machine.admin(
            ["auth", "--issuer", "https://login.airline.example", "--client-id", "c", "--client-secret-stdin"],
            lines: [""]
        )
        #expect(empty.status == 1)
        #expect(empty.standardError.contains("the client secret is empty."))
        let shown = try await machine.admin(["auth"])
        #expect(shown.output == "Sign-in:         basic: a user name and password kept by this server\n")
    }

    @Test("users revoke ends every session of the user; an unknown user is refused")
    func revoke() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let revoked = try await machine.admin(["users", "revoke", "alice"])
        #expect(revoked.status == 0, "\(revoked.standardError)")
        #expect(revoked.output.contains("Every session of alice has ended; they can sign in again."))
        let unknown = try await machine.admin(["users", "revoke", "nobody"])
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("There is no user with this name."))
    }

    @Test("users link, identities and unlink: a provider's subject linked to one user at most")
    func identityLinks() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let identity = ["--issuer", "https://login.airline.example", "--subject", "00u1a2b3c4"]
        let none = try await machine.admin(["users", "identities", "alice"])
        #expect(none.status == 0 && none.output == "No provider identities are linked to alice.\n")

        let linked = try await machine.admin(["users", "link", "alice"] + identity)
        #expect(linked.status == 0, "\(linked.standardError)")
        #expect(linked.output == "Linked 00u1a2b3c4 at https://login.airline.example to alice.\n")
        let listed = try await machine.admin(["users", "identities", "alice"])
        #expect(listed.output.contains("https://login.airline.example") && listed.output.contains("00u1a2b3c4"))

        let taken = try await machine.admin(["users", "link", "bob"] + identity)
        #expect(taken.status == 1)
        #expect(taken.standardError.contains("linked to another user"))
        let badIssuer = try await machine.admin(["users", "link", "bob", "--issuer", "ftp://x", "--subject", "s"])
        #expect(badIssuer.status == 1 && badIssuer.standardError.contains("issuer must be an https URL"))
        let missing = try await machine.admin(["users", "link", "bob", "--issuer", "https://login.airline.example"])
        #expect(missing.status == 64)

        let unlinked = try await machine.admin(["users", "unlink", "alice"] + identity)
        #expect(unlinked.status == 0, "\(unlinked.standardError)")
        let again = try await machine.admin(["users", "unlink", "alice"] + identity)
        #expect(again.status == 1 && again.standardError.contains("not linked to alice"))
    }
}
