import Foundation
import GangwayAdmin
import GangwayProtocol
import GangwayServices
import GangwaySystem
import GangwayTerminal

/// How `gangway admin` prints what the server holds: aligned columns and labelled lines.
enum AdminFormatter {
    static func apps(_ apps: [ManagedApp]) -> String {
        guard !apps.isEmpty else { return "No apps." }
        return table(
            ["APP", "NAME", "EMAIL DOMAINS"],
            apps.map { [$0.id, $0.name, $0.emailDomains.joined(separator: " ")] }
        )
    }

    static func users(_ users: [ManagedUser]) -> String {
        guard !users.isEmpty else { return "No users." }
        return table(
            ["USER", "NAME", "STATUS", "CREATED"],
            users.map { [$0.username, $0.displayName, $0.isBlocked ? "blocked" : "active", date($0.createdAt)] }
        )
    }

    static func identityLinks(_ links: [ManagedIdentityLink], user: String) -> String {
        guard !links.isEmpty else { return "No provider identities are linked to \(user)." }
        return table(["ISSUER", "SUBJECT", "LINKED"], links.map { [$0.issuer, $0.subject, date($0.createdAt)] })
    }

    static func authentication(_ authentication: ManagedAuthentication) -> String {
        var lines: [(String, String)] = []
        switch authentication.type {
        case .basic: lines.append(("Sign-in", "basic: a user name and password kept by this server"))
        case .oauth2: lines.append(("Sign-in", "oauth2: OAuth 2.0, this server as the authorization server"))
        }
        if let provider = authentication.provider {
            lines.append(("Provider", provider.issuer))
            lines.append(("Client ID", provider.clientID))
            lines.append(("Client secret", provider.hasClientSecret ? "kept, sealed" : "none"))
            if let redirect = provider.redirectURI {
                lines.append(("Redirect to", "\(redirect) (register it at the provider)"))
            }
            lines.append(
                (
                    "New people",
                    provider.createsUsers
                        ? "get a user at their first sign-in"
                        : "sign in only once an admin linked them to a user ('gangway admin users link')"
                )
            )
            let claims = provider.attributeClaims?.additionalProperties ?? [:]
            lines.append(
                (
                    "Attributes",
                    claims.isEmpty
                        ? "none from the provider's claims"
                        : claims.sorted { $0.key < $1.key }.map { "\($0.key) from claim \($0.value)" }
                            .joined(separator: ", ")
                )
            )
            if authentication.type == .basic { lines.append(("", "(the provider is used once the type is oauth2)")) }
        } else if authentication.type == .oauth2 {
            lines.append(("Provider", "none: people sign in as this server's users"))
        }
        if authentication.type == .oauth2 || !authentication.redirectURIs.isEmpty {
            lines.append(
                (
                    "Redirect URIs",
                    authentication.redirectURIs.isEmpty
                        ? "none: the device grant only" : authentication.redirectURIs.joined(separator: ", ")
                )
            )
        }
        return labelled(lines)
    }

    static func devices(_ devices: [ManagedDevice]) -> String {
        guard !devices.isEmpty else { return "No devices registered." }
        return table(
            ["REGISTRATION", "USER", "STATUS", "DEVICE", "VERSION", "LAST CONTACT"],
            devices.map {
                [
                    $0.registrationID, $0.username,
                    $0.wipeCarriedOut.map { $0 ? "wiped (carried out)" : "wiped (waiting)" } ?? $0.status.rawValue,
                    "\($0.deviceName) (\($0.deviceID))",
                    $0.appVersion, $0.lastContactAt.map(date) ?? "never",
                ]
            }
        )
    }

    static func entities(_ entities: [AppEntity]) -> String {
        guard !entities.isEmpty else { return "No entities in this set." }
        return table(
            ["ID", "VERSION", "UPDATED", "BY", "FIELDS"],
            entities.map { entity in
                let fields = entity.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                return [
                    entity.id, "\(entity.version)", date(entity.updatedAt), entity.updatedBy,
                    fields.joined(separator: " "),
                ]
            }
        )
    }

    /// The app and everything its devices receive.
    static func settings(_ app: ManagedApp) -> String {
        let settings = app.settings
        return [
            "App:             \(app.id) · \(app.name)",
            "Email domains:   \(app.emailDomains.isEmpty ? "none" : app.emailDomains.joined(separator: ", "))",
            "Minimum version: \(app.minimumVersion ?? "any")",
            policy(app),
            sharedDevice(app),
            passcodeReset(app),
            agreements(app),
            logSettings(app),
            retention(app),
            "Out of contact:  "
                + [
                    settings.lockAfterDaysWithoutContact.map { "sign in again after \($0) days" },
                    settings.wipeAfterDaysWithoutContact.map { "data erased after \($0) days" },
                ].compactMap { $0 }.joined(separator: "; ").ifEmpty("no limit"),
        ].joined(separator: "\n")
    }

    static func policy(_ app: ManagedApp) -> String {
        "Passcode:        \(PolicyText.describe(app.settings.passcodeRequirement))"
    }

    static func sharedDevice(_ app: ManagedApp) -> String {
        let upload = app.settings.allowsUploadOfPreviousUserChanges
        return
            "Shared device:   the previous user's pending changes are \(upload ? "" : "not ")uploaded before the next user's session"
    }

    static func agreements(_ app: ManagedApp) -> String {
        let eula = app.settings.eulaVersion.map { "licence agreement \($0)" } ?? "licence agreement: the app's own"
        let consent = app.settings.consentVersion.map { "consent \($0)" } ?? "consent: the app's own"
        return "Agreements:      \(eula); \(consent)"
    }

    static func retention(_ app: ManagedApp) -> String {
        let days = app.settings.removalsKeptDays ?? APIDefaults.removalsKeptDays
        return
            "Removals kept:   \(days) \(days == 1 ? "day" : "days"); a device away longer reads its sets again from the start"
    }

    static func passcodeReset(_ app: ManagedApp) -> String {
        app.passcodeResetKeepsData
            ? "Passcode reset:  keeps the user's data (a recovery secret per device, released to the same user)"
            : "Passcode reset:  erases the user's data on that device (no recovery secret)"
    }

    /// `date` in this machine's time zone as `2026-11-27 06:00`, in the calendar the API's
    /// times are written in (the proleptic Gregorian one of RFC 3339), so a time shows as
    /// the API sent it, whatever its year.
    static func date(_ date: Date) -> String {
        let local = date.addingTimeInterval(TimeInterval(TimeZone.current.secondsFromGMT(for: date)))
        let text = LenientDateTranscoder.format(local)
        guard text.count == 20 else { return text }
        return text.prefix(10) + " " + text.dropFirst(11).prefix(5)
    }

    /// `Label:` lines with their values in one column, as ``settings(_:)`` prints them.
    static func labelled(_ lines: [(String, String)]) -> String {
        lines.map { label, value in
            TerminalColumns.padded(label.isEmpty ? "" : "\(label):", to: 17) + value
        }.joined(separator: "\n")
    }

    /// Left-aligned columns two spaces apart, as wide as their widest cell on a terminal.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        // A cell is one line of text: a device's line break or tab (a log message keeps
        // them) is written out, so it cannot draw a row or a column nobody sent.
        let all = [header] + rows.map { $0.map { TextRules.escapingControls($0, keepingLines: false) } }
        let widths = header.indices.map { column in all.map { TerminalColumns.width(of: $0[column]) }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : TerminalColumns.padded(cell, to: widths[column])
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

extension String {
    fileprivate func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}
