import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayPolicy
import GangwayProtocol
import GangwayServices
import GangwayTerminal

/// `gangway admin apps`.
struct AdminApps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List the server's apps, or add one.",
        subcommands: [AdminAppsList.self, AdminAppsAdd.self],
        defaultSubcommand: AdminAppsList.self
    )
}

struct AdminAppsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the apps (the default).")

    @OptionGroup var server: AdminOptions

    func run() async throws {
        try await server.run { admin in Console.standardOutput(AdminFormatter.apps(try await admin.apps())) }
    }
}

struct AdminAppsAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an app with the server's default settings.",
        discussion: "Devices find it by a work email in one of its --email-domain domains, or by its activation link."
    )

    @OptionGroup var server: AdminOptions

    @Argument(help: "The app's ID: letters, digits, '.', '_' or '-'.")
    var appID: String

    @Option(name: .customLong("name"), parsing: .unconditional, help: "The name devices show.")
    var name: String

    @Option(name: .customLong("email-domain"), help: "A work-email domain that discovers the app (repeatable).")
    var emailDomains: [String] = []

    func validate() throws {
        try IdentifierArgument.check(appID, as: "the app ID")
        if let problem = TextRules.nameProblem(name) { throw ValidationError("--name \(problem).") }
    }

    func run() async throws {
        let (appID, name, emailDomains) = (appID, name, emailDomains)
        try await server.run { admin in
            try await admin.createApp(id: appID, name: name, emailDomains: emailDomains)
            Console.standardOutput("Added \(appID) (\(name)).")
        }
    }
}

/// `gangway admin settings`.
struct AdminSettings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract:
            "Show an app's settings: passcode policy, shared device, logs, removals kept, out-of-contact limits, minimum version."
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    func run() async throws {
        try await server.run { admin in
            Console.standardOutput(AdminFormatter.settings(try await admin.app(try await app.resolve(with: admin))))
        }
    }
}

/// `gangway admin policy`.
struct AdminPolicy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Show the passcode policy, or change the rules given.",
        discussion: """
            Only the options given change. A device learns the new policy at its next server \
            contact; when its passcode no longer meets the rules, the user is told why at the \
            next unlock and must change it.
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Option(name: .customLong("required"), help: "Whether a passcode is required at all (true or false).")
    var isRequired: Bool?
    @Option(
        name: .customLong(Field.minimumLength.option),
        parsing: .unconditional,
        help: .init(Field.minimumLength.help)
    )
    var minimumLength: Int?
    @Option(name: .customLong(Field.digitsOnly.option), help: .init(Field.digitsOnly.help))
    var digitsOnly: Bool?
    @Option(name: .customLong(Field.requiresDigit.option), help: .init(Field.requiresDigit.help))
    var requiresDigit: Bool?
    @Option(name: .customLong(Field.requiresUppercase.option), help: .init(Field.requiresUppercase.help))
    var requiresUppercase: Bool?
    @Option(name: .customLong(Field.requiresLowercase.option), help: .init(Field.requiresLowercase.help))
    var requiresLowercase: Bool?
    @Option(name: .customLong(Field.requiresSpecial.option), help: .init(Field.requiresSpecial.help))
    var requiresSpecial: Bool?
    @Option(
        name: .customLong(Field.minimumUniqueCharacters.option),
        parsing: .unconditional,
        help: .init(Field.minimumUniqueCharacters.help)
    )
    var minimumUniqueCharacters: Int?
    @Option(name: .customLong(Field.retryLimit.option), parsing: .unconditional, help: .init(Field.retryLimit.help))
    var retryLimit: Int?
    @Option(name: .customLong(Field.lockTimeout.option), parsing: .unconditional, help: .init(Field.lockTimeout.help))
    var lockTimeout: Int?
    @Option(
        name: .customLong(Field.expiresInDays.option),
        parsing: .unconditional,
        help: .init(Field.expiresInDays.help)
    )
    var expiresInDays: Int?
    @Option(name: .customLong(Field.historySize.option), parsing: .unconditional, help: .init(Field.historySize.help))
    var historySize: Int?
    @Option(name: .customLong(Field.biometricsEnabled.option), help: .init(Field.biometricsEnabled.help))
    var biometricsEnabled: Bool?
    @Option(name: .customLong(Field.allowsSkip.option), help: .init(Field.allowsSkip.help))
    var allowsSkip: Bool?
    @Option(name: .customLong(Field.blocksCommon.option), help: .init(Field.blocksCommon.help))
    var blocksCommon: Bool?

    private typealias Field = PasscodePolicy.Field

    /// The options given, each with its field.
    private var given: [(Field, PasscodePolicy.SettingValue?)] {
        [
            (.minimumLength, minimumLength.map(PasscodePolicy.SettingValue.number)),
            (.digitsOnly, digitsOnly.map(PasscodePolicy.SettingValue.flag)),
            (.requiresDigit, requiresDigit.map(PasscodePolicy.SettingValue.flag)),
            (.requiresUppercase, requiresUppercase.map(PasscodePolicy.SettingValue.flag)),
            (.requiresLowercase, requiresLowercase.map(PasscodePolicy.SettingValue.flag)),
            (.requiresSpecial, requiresSpecial.map(PasscodePolicy.SettingValue.flag)),
            (.minimumUniqueCharacters, minimumUniqueCharacters.map(PasscodePolicy.SettingValue.number)),
            (.retryLimit, retryLimit.map(PasscodePolicy.SettingValue.number)),
            (.lockTimeout, lockTimeout.map(PasscodePolicy.SettingValue.number)),
            (.expiresInDays, expiresInDays.map(PasscodePolicy.SettingValue.number)),
            (.historySize, historySize.map(PasscodePolicy.SettingValue.number)),
            (.biometricsEnabled, biometricsEnabled.map(PasscodePolicy.SettingValue.flag)),
            (.allowsSkip, allowsSkip.map(PasscodePolicy.SettingValue.flag)),
            (.blocksCommon, blocksCommon.map(PasscodePolicy.SettingValue.flag)),
        ]
    }

    /// A number out of its field's range is a bad command line, said with the option's
    /// name before anything is sent: the table holds the range the server checks.
    func validate() throws {
        for (field, value) in given {
            guard case .number(let range) = field.kind, let number = value?.number, !range.contains(number) else {
                continue
            }
            throw ValidationError("--\(field.option) must be between \(range.lowerBound) and \(range.upperBound).")
        }
    }

    var change: PasscodePolicyChange {
        var change = PasscodePolicyChange()
        change.isRequired = isRequired
        for (field, value) in given { change[field] = value }
        return change
    }

    func run() async throws {
        try await app.show(
            on: server,
            changing: change == PasscodePolicyChange() ? nil : AppChange(passcodePolicy: change),
            changed: "Changed. Devices apply it at their next server contact.",
            as: AdminFormatter.policy
        )
    }
}

/// `gangway admin shared-device`.
struct AdminSharedDevice: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared-device",
        abstract: "Show or set whether a shared device uploads the previous user's pending changes."
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Option(
        name: .customLong("upload-previous-user-changes"),
        help: "Upload the previous user's pending changes, as that user, before the next session (true or false)."
    )
    var upload: Bool?

    func run() async throws {
        try await app.show(
            on: server,
            changing: upload.map { AppChange(allowsUploadOfPreviousUserChanges: $0) },
            as: AdminFormatter.sharedDevice
        )
    }
}

/// `gangway admin agreements`.
struct AdminAgreements: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agreements",
        abstract: "Show or set the licence agreement and consent versions users must accept.",
        discussion: """
            A device asks each user again, at the next launch or unlock and before they reach \
            their data, when the version is not one they accepted. Declining the licence \
            agreement (or a required consent) closes the session; the data stays on the \
            device. An empty version clears it: the app's own version applies.
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Option(name: .customLong("eula-version"), help: "The licence agreement version users must accept.")
    var eulaVersion: String?
    @Option(name: .customLong("consent-version"), help: "The consent version users must answer.")
    var consentVersion: String?

    func validate() throws {
        let longest = APILimits.agreementVersion.upperBound
        for (option, value) in [("--eula-version", eulaVersion), ("--consent-version", consentVersion)] {
            guard let value, value.unicodeScalars.count > longest || TextRules.hasControlCharacters(value) else {
                continue
            }
            throw ValidationError("\(option) must be at most \(longest) characters, without control characters.")
        }
    }

    func run() async throws {
        let asked = eulaVersion != nil || consentVersion != nil
        try await app.show(
            on: server,
            changing: asked ? AppChange(eulaVersion: eulaVersion, consentVersion: consentVersion) : nil,
            as: AdminFormatter.agreements
        )
    }
}

/// `gangway admin passcode-reset`.
struct AdminPasscodeReset: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passcode-reset",
        abstract: "Show or set whether a forgotten passcode, reset after signing in again, keeps the user's data.",
        discussion: """
            When it does (the default), the server keeps a recovery secret per device \
            registration and gives it back when the same user signs in again on that device: \
            the secret opens the device's store without the passcode, so the store is then \
            as strong as the user's server password. The secret is replaced when the \
            password changes, the user is blocked or the device is wiped. When it does not, \
            a forgotten passcode erases the user's data on that device; turning it off \
            destroys every secret the app's registrations had.
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Option(name: .customLong("keep-data"), help: "Keep the user's data at a passcode reset (true or false).")
    var keepData: Bool?

    func run() async throws {
        try await app.show(
            on: server,
            changing: keepData.map { AppChange(passcodeResetKeepsData: $0) },
            as: AdminFormatter.passcodeReset
        )
    }
}

/// `gangway admin minimum-version`.
struct AdminMinimumVersion: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "minimum-version",
        abstract: "Show or set the oldest app version still allowed; older versions are inactive.",
        discussion: """
            A device with an older version is refused at its next launch and told to update. \
            --clear allows every version again.
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Argument(help: "A version such as 1.2 or 2.0.1.")
    var version: String?

    @Flag(name: .customLong("clear"), help: "Allow every version.")
    var clear = false

    func validate() throws {
        if clear && version != nil { throw ValidationError("Give a version or --clear, not both.") }
        if let version {
            let parts = version.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...4).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) })
            else { throw ValidationError("'\(version)' is not a version such as 1.2 or 2.0.1.") }
        }
    }

    func run() async throws {
        try await app.show(on: server, changing: (clear ? "" : version).map { AppChange(minimumVersion: $0) }) {
            "Minimum version: \($0.minimumVersion.map { "\($0); older versions are inactive" } ?? "any")"
        }
    }
}

/// `gangway admin activation`.
struct AdminActivation: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activation",
        abstract: "Make a signed activation link for the app, and optionally its QR code as a PNG.",
        discussion: """
            The link is what the device app's welcome screen takes under 'Activate with a \
            link'; the QR code holds a link of its own. Each activates for --valid-days \
            (7 by default) and carries a nonce the server logs. The PNG is drawn by the \
            server.
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Option(name: .customLong("png"), help: "Also write the QR code to this new PNG file (never over an existing one).")
    var pngPath: String?

    @Option(
        name: .customLong("valid-days"),
        parsing: .unconditional,
        help:
            "Days the link activates, \(APILimits.activationValidDays.lowerBound) to \(APILimits.activationValidDays.upperBound)."
    )
    var validDays = 7

    func validate() throws {
        guard APILimits.activationValidDays.contains(validDays) else {
            throw ValidationError(
                "--valid-days must be between \(APILimits.activationValidDays.lowerBound) and \(APILimits.activationValidDays.upperBound)."
            )
        }
    }

    func run() async throws {
        let pngPath = pngPath
        let validDays = validDays
        // Before anything is made: a PNG that cannot be written makes no link either.
        if let pngPath { try await CommandReport.run("gangway admin") { try Self.checkWritable(pngPath) } }
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            Console.standardOutput(try await admin.activationLink(app: id, validDays: validDays))
            if let pngPath {
                let png = try await admin.activationQRCode(app: id, validDays: validDays)
                do {
                    // Made new, never over a file that appeared since the check.
                    try png.write(to: URL(fileURLWithPath: pngPath), options: .withoutOverwriting)
                } catch {
                    throw CommandFailure("cannot write \(pngPath).")
                }
                Console.standardError("QR code written to \(pngPath) (\(png.count) bytes).")
            }
        }
    }

    /// Refuses a PNG path whose directory is missing or not writable, or where a file or
    /// directory is already, saying which.
    static func checkWritable(_ path: String) throws {
        let file = URL(fileURLWithPath: path)
        let directory = file.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) {
            // Another file is never replaced: the path may be mistyped, and name the admin token.
            throw CommandFailure(
                isDirectory.boolValue
                    ? "cannot write \(path): it is a directory."
                    : "cannot write \(path): a file is there already; give a new file's path."
            )
        }
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw CommandFailure("cannot write \(path): there is no directory \(directory).") }
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw CommandFailure("cannot write \(path): the directory \(directory) is not writable.")
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
